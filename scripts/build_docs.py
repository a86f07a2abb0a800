"""Build pe_anchor's docs site from the notebooks, offline: Sphinx + MyST-NB with the furo theme (config in docs/).

    python scripts/build_docs.py [--out _site] [--execute] [--jobs N] [--stage DIR]

Pages, in reading order: nbs/00_index.ipynb (the home page; README.md's source), the top-level section notebooks
nbs/*.ipynb in file-name order, "Guides": the pages docs/*.md (their README and deviations.md aside) in the order
of README.md's last links to them (its list of them), the library notebooks nbs/lib/*.ipynb (then any other nbs/
subfolder), and "Committed results": for each reports/NAME/ with executed notebooks or a report, an overview page (its
README, report.html as a standalone file, every figure, the tables) and the executed notebooks. Everything is found
by glob (git-ignored files and names starting with `_` or `.` are skipped), so a new notebook appears without a config
edit.

Links: a relative link in a notebook or page is resolved from that file's folder (in nbs/00_index.ipynb from the
repository root, as in README.md) and rewritten to its URL in the site: a notebook or .md file -> its page, a folder ->
its README page or a generated listing, a text file browsers won't show (LICENSE, .cff, .py, ...) -> a page showing it
(the raw file is copied too), any other file (PNG, CSV, report.html, ...) -> a copy at its repository path (and the
local scripts a copied HTML file loads, a report's shared plotly.js, at theirs). A link that resolves to nothing (or
to a git-ignored file, absent from a clone) is listed, left as written, and fails the build.

nbdev: cells with `#| hide` or `#| include: false` and lone `#| default_exp` cells are left out, `#| echo: false` /
`#| output: false` hide the input / output, `#|` lines are not shown. Plotly figures stored as plotly JSON are drawn by
the site's own plotly.js (the installed plotly's), with the PNG the executed copies carry as the fallback; an output
that only inlines plotly.js is dropped (the site loads its copy in the <head> of pages with figures). A figure the
report notebook saved is, in its executed copy, a markdown image of that PNG (`../figures/<name>.png`,
pe_anchor.engine.notebooks.link_saved_figures): its link is resolved like any other, and MyST-NB shows the file.

Results: the site is built from the committed reproduction. The home page carries the blocks README.md generates
(scripts/make_readme.py: which study `reports/cpu` is, its verdict table, the glance figure when committed, each
preset's cost), never the notebook's placeholder. A section notebook with a "## The committed result" section (the
report notebook 08_claims: its "## The committed study's claims") has the cells up to the end of that section executed
(parameters at their defaults; those cells only read `reports/cpu`'s SHA-checked tables;
`pe_anchor.engine.notebooks.run_committed`, which writes every reproduction's notebooks, with the set-up cells' outputs kept),
the rest shown unexecuted, under a banner naming the study (confirmatory or exploratory, its seeds and date); the
outputs are cached in build/docs-cache/ by a hash of the cells, the committed files and the package source. The
"Committed results" pages show the committed report (`report.html`), every figure with its caption and the paper's
figure it redraws, and the committed executed notebooks. `site/_pe_docs_expect.json` lists the pages that must carry
results (scripts/check_docs.py fails a page that carries none). `--no-results` skips the execution (no outputs; a quick
look at the prose only).

--execute runs the top-level section notebooks (not the home page) whole with papermill and their default parameters
(the seconds-long `smoke` preset), IN_TEST=1 (temporary cache and output folders, removed by the notebooks themselves)
and plotly's `plotly_mimetype` renderer, `--jobs` at a time: a plumbing check, and every such page says so (the report
notebook is then titled a smoke plumbing check, never the report). MyST-NB's `jupyter_execute/` is removed from the
site. Exit status 1 if Sphinx or an executed notebook failed or a link resolved to nothing (the site is still written).
"""
import argparse, configparser, hashlib, json, os, posixpath, re, shutil, subprocess, sys, tempfile, time, warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote, unquote

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / 'docs'
CACHE = ROOT / 'build' / 'docs-cache'  # executed committed-result cells (git-ignored)
COMMITTED = ROOT / 'reports' / 'cpu'    # the reproduction the site shows
EXPECT = '_pe_docs_expect.json'         # pages that must carry results, for scripts/check_docs.py
from pe_anchor.report.pages import figure_list, seed_range, study_kind, study_of  # defined once, in pe_anchor.report.pages
REPORT_NB = '08_claims.ipynb'  # the notebook that renders a reproduction's report
def committed_study() -> str:
    "'the confirmatory study (`reports/cpu`, seeds 100-105)', or the exploratory one: which study the site shows."
    st = study_of(COMMITTED)
    return f"the {study_kind(COMMITTED)} study (`reports/cpu`, seeds {seed_range(st['seeds'])})"

def report_note() -> str:
    "The note on the report notebook's page: what it shows of the committed study, and where the committed report is."
    return (f":::{{admonition}} The report of {committed_study()}\n:class: note\n\nThis page is the notebook that "
            "renders a reproduction's report (`pe-anchor-paper` runs it on its output). *The committed study's claims* "
            f"below shows the claims of {committed_study()}, rendered from its SHA-checked tables; the cells after it "
            "are shown unexecuted (they render a reproduction's report). The committed report itself is "
            "[`report.html`](../reports/cpu/report.html): every claim with its parts, every figure, the tables beside "
            "the paper's.\n:::")
REPORT_SECTION = "## The committed study's claims"  # the report notebook's committed section (`section_stop`)
SMOKE_NOTE = (":::{admonition} Executed with the smoke preset\n:class: warning\n\nThis page was executed with the "
              "notebook's defaults (the seconds-long `smoke` preset, synthetic images): **a plumbing check, not a "
              "result**.\n:::")
SMOKE_REPORT_TITLE = 'A smoke reproduction (a plumbing check, not the report)'
def smoke_report_note() -> str:
    "The note on the report notebook's page when it was executed with the smoke preset."
    return (":::{admonition} A plumbing check, not the report\n:class: warning\n\nExecuted here with the `smoke` "
            "preset (seconds-long runs on synthetic images): every verdict below is meaningless. The report of "
            f"{committed_study()} is [`report.html`](../reports/cpu/report.html).\n:::")
sys.path.insert(0, str(ROOT / 'scripts'))
import make_readme  # the README's generated blocks, the committed study's seeds and date
from pe_anchor.base.render import PLOTLY_MIME  # defined once, in pe_anchor.base.render
from pe_anchor.engine.notebooks import committed_stop  # where a section's committed result ends: one definition

def section_stop(path:Path, cells) -> int|None:
    """Index of the first cell after a section notebook's committed result (None: it has none): `committed_stop` (its
    '## The committed result'), or for the report notebook the end of its `REPORT_SECTION` (not '## The committed
    result': the merge writes that notebook's executed copy, so `scripts/committed_notebooks.py` must not)."""
    if path.name != REPORT_NB: return committed_stop(cells)
    heads = [i for i, c in enumerate(cells) if c['cell_type'] == 'markdown' and '## ' in src_text(c)
             and any(l.startswith('## ') for l in src_text(c).splitlines())]
    start = next((i for i in heads if REPORT_SECTION in src_text(cells[i]).splitlines()), None)
    return None if start is None else next((i for i in heads if i > start), len(cells))
PAGE_SUFFIXES = ('.ipynb', '.md')
TEXT_SUFFIXES = {'': 'text', '.cff': 'yaml', '.py': 'python', '.sh': 'bash', '.toml': 'toml', '.cfg': 'ini',
                 '.ini': 'ini', '.yml': 'yaml', '.yaml': 'yaml'}  # shown as a page: browsers download these
STAGE_MARK, OUT_MARK = '.pe_anchor_docs_stage', '.pe_anchor_docs'
SCHEME = re.compile(r'^[a-zA-Z][a-zA-Z0-9+.-]*:')
SCRIPT_SRC = re.compile(r'''<script\b[^>]*?\ssrc\s*=\s*["']([^"']+)["']''', re.I)  # a page's scripts

def settings():
    cfg = configparser.ConfigParser(); cfg.read(ROOT / 'settings.ini')
    d = cfg['DEFAULT']
    return d.get('nbs_path', 'nbs'), d.get('readme_nb', '00_index.ipynb')

NBS, README_NB = settings()
INDEX_SRC = f'{NBS}/{README_NB}'

# ---------------------------------------------------------------- which files exist for the site (as CI's clone has)
_ignored = {}
def ignored(rel:str) -> bool:
    "Is `rel` (repository path) ignored by git (so absent from a fresh clone)? False outside a git checkout."
    if rel not in _ignored:
        r = subprocess.run(['git', 'check-ignore', '-q', '--', rel], cwd=ROOT, capture_output=True)
        _ignored[rel] = r.returncode == 0
    return _ignored[rel]

def skipped(p:Path) -> bool:
    rel = p.relative_to(ROOT)
    return any(part.startswith(('_', '.')) for part in rel.parts) or ignored(rel.as_posix())

def notebooks(folder:Path, pattern='*.ipynb') -> list:
    return sorted(p for p in folder.glob(pattern) if p.is_file() and not skipped(p))

def exists(rel:str) -> bool:
    p = ROOT / rel
    return (rel == '' or not rel.startswith('..')) and p.exists() and (rel == '' or not ignored(rel))

# ---------------------------------------------------------------- markdown link rewriting
FENCE = re.compile(r'^\s{0,3}(`{3,}|~{3,})')
CODE_SPAN = re.compile(r'(`+)(?:.|\n)*?(?<!`)\1(?!`)')
LINK = re.compile(r'(\]\(\s*<?)([^)\s>]+)')
REFDEF = re.compile(r'^(\s{0,3}\[[^\]]+\]:\s*<?)([^\s>]+)', re.M)
ATTR = re.compile(r'''(\b(?:src|href)\s*=\s*)(["'])(.*?)\2''', re.I)

def rewrite_markdown(text:str, fn) -> str:
    "Apply `fn` to every link target of markdown `text` (inline, reference, HTML src/href), outside code."
    out, fence, chunk = [], None, []
    def flush():
        if chunk: out.append(rewrite_prose(''.join(chunk), fn)); chunk.clear()
    for line in text.splitlines(keepends=True):
        m = FENCE.match(line)
        if fence:
            out.append(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):]:
                fence = None
        elif m: flush(); fence = m.group(1); out.append(line)
        else: chunk.append(line)
    flush()
    return ''.join(out)

def rewrite_prose(text:str, fn) -> str:
    parts, last = [], 0
    for m in CODE_SPAN.finditer(text):
        parts.append(_rewrite(text[last:m.start()], fn)); parts.append(m.group(0)); last = m.end()
    parts.append(_rewrite(text[last:], fn))
    return ''.join(parts)

def _rewrite(text:str, fn) -> str:
    text = LINK.sub(lambda m: m.group(1) + fn(m.group(2)), text)
    text = REFDEF.sub(lambda m: m.group(1) + fn(m.group(2)), text)
    return ATTR.sub(lambda m: m.group(1) + m.group(2) + fn(m.group(3)) + m.group(2), text)

# ---------------------------------------------------------------- notebooks: nbdev directives, plotly outputs
DIRECTIVE = re.compile(r'^\s*#\|\s?(.*)$')

def src_text(cell) -> str:
    s = cell.get('source', '')
    return ''.join(s) if isinstance(s, list) else s

def nbdev_cell(cell):
    "The cell as nbdev's docs show it (None: left out)."
    if cell['cell_type'] != 'code': return cell
    lines = src_text(cell).splitlines()
    opts = [m.group(1).strip().lower() for m in map(DIRECTIVE.match, lines) if m]
    if not opts: return cell
    body = [l for l in lines if not DIRECTIVE.match(l)]
    norm = [re.sub(r'\s*:\s*', ': ', o) for o in opts]  # `include:false` -> `include: false`
    if any(o in ('hide', 'include: false') for o in norm): return None
    if not any(l.strip() for l in body) and not cell.get('outputs'): return None  # e.g. a lone `#| default_exp`
    hide = [t for o, t in (('echo: false', 'remove-input'), ('output: false', 'remove-output')) if o in norm]
    if hide: cell.setdefault('metadata', {}).setdefault('tags', []).extend(hide)
    cell['source'] = '\n'.join(body)
    return cell

def joined(v) -> str: return ''.join(v) if isinstance(v, list) else v

def plotly_html(spec:dict, png:str|None) -> str:
    "A plotly JSON figure as HTML drawn by the page's plotly.js; its PNG (if any) shows until drawn, or if not drawn."
    layout = {k: v for k, v in spec.get('layout', {}).items() if k != 'width'}  # the column's width, never a fixed one
    payload = json.dumps(dict(data=spec.get('data', []), layout=dict(layout, autosize=True), config=spec.get('config', {})))
    uid = 'pe-plot-' + hashlib.sha1(payload.encode()).hexdigest()[:12]
    payload = payload.replace('</', '<\\/')
    img = (f'<img class="pe-docs-fallback" alt="figure (static copy)" src="data:image/png;base64,{png.strip()}">'
           if png else '')
    return (f'<div class="pe-docs-plotly" data-traces="{len(spec.get("data", []))}"><div id="{uid}" class="pe-docs-plot">'
            f'</div>{img}<script>(function(){{var el=document.getElementById("{uid}"),'
            f'f=el.parentNode.querySelector(".pe-docs-fallback");function draw(){{if(!window.Plotly)return;var s={payload};'
            f'Plotly.newPlot(el,s.data,s.layout,Object.assign({{responsive:true}},s.config))'
            f'.then(function(){{if(f)f.style.display="none";}});}}'
            f'if(window.Plotly||document.readyState!=="loading")draw();'
            f'else document.addEventListener("DOMContentLoaded",draw);}})();</script></div>')

def is_plotlyjs(html:str) -> bool:
    "An output that only inlines the whole plotly.js (e.g. `pe_anchor.base.render.plotlyjs_html()`)."
    return len(html) > 500_000 and html.lstrip().startswith('<script') and 'plotly.js' in html[:2000]

def convert_outputs(cell, md_fn):
    for o in cell.get('outputs', []):
        d = o.get('data')
        if not d: continue
        if PLOTLY_MIME in d:
            spec = d[PLOTLY_MIME]
            if isinstance(spec, str): spec = json.loads(spec)
            png = joined(d['image/png']) if 'image/png' in d else None
            o['data'] = {'text/html': plotly_html(spec, png), 'text/plain': '<plotly figure>'}
        elif 'text/html' in d and is_plotlyjs(joined(d['text/html'])):
            o['data'] = {'text/html': '<!-- plotly.js: the site serves its own copy -->'}
        elif 'text/markdown' in d:
            d['text/markdown'] = rewrite_markdown(joined(d['text/markdown']), md_fn)

def signatures(source:str) -> str|None:
    """The rendered signatures of an exported cell's top-level functions and classes, as nbdev's `show_doc` shows them
    (name, signature with its parameter comments, docstring): markdown, or None if the cell defines none."""
    import ast
    try: tree = ast.parse(source)
    except SyntaxError: return None
    lines, out = source.splitlines(), []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or node.name.startswith('_'): continue
        body_start = node.body[0].lineno - 1 if node.body else node.lineno
        head = [l for l in lines[node.lineno - 1:body_start] if not l.lstrip().startswith('@')]
        head = '\n'.join(head).rstrip()
        if node.body and node.body[0].lineno == node.lineno: head = lines[node.lineno - 1][:node.body[0].col_offset]
        head = re.sub(r':\s*(#.*)?$', '', head).rstrip()
        doc = ast.get_docstring(node) or ''
        kind = 'class' if isinstance(node, ast.ClassDef) else 'function'
        out.append(f'### `{node.name}`\n\n```python\n{head}\n```\n\n{doc}'.rstrip() + f'\n\n*({kind}; its source below)*')
    return '\n\n'.join(out) or None

def title_of(cells) -> str|None:
    for c in cells:
        if c['cell_type'] == 'markdown':
            for line in src_text(c).splitlines():
                if line.startswith('# '): return line[2:].strip()
                if line.strip(): return None
    return None

def plain(title:str) -> str: return re.sub(r'[`*]', '', title)  # a sidebar title is plain text

# ---------------------------------------------------------------- the site
class Site:
    def __init__(self, stage:Path):
        self.src, self.extra = stage / 'src', stage / 'extra'
        self.docnames = {}   # repository path (or a generated page's virtual path) -> docname
        self.taken = {}      # docname -> repository path
        self.todo = []       # repository paths of pages still to write
        self.unresolved = [] # (page, link) that resolve to nothing
        self.generated = {}  # virtual path -> markdown writer
        self.sources = {}    # repository path -> its executed copy (--execute), rendered instead
        self.in_toc = set()  # repository paths of pages in a toctree (the others are orphans)
        self.notes, self.tocs = {}, {}  # repository path -> a note under the title / toctrees at the end
        self.titles = {}     # repository path -> the title its page shows instead of the notebook's
        self.show_doc = True # library pages: rendered signatures above their (folded) source

    def claim(self, rel:str, docname:str) -> str:
        base, n = docname, 2
        while docname in self.taken and self.taken[docname] != rel: docname = f'{base}-{n}'; n += 1
        self.taken[docname] = rel; self.docnames[rel] = docname
        return docname

    def page(self, rel:str) -> str:
        "The docname of the page for repository path `rel` (queued for writing on first use)."
        if rel == 'README.md': rel = INDEX_SRC  # README.md is generated from the index notebook
        if rel in self.docnames: return self.docnames[rel]
        if rel == INDEX_SRC: doc = 'index'
        elif rel.startswith(NBS + '/') and rel.endswith('.ipynb'): doc = rel[len(NBS) + 1:-len('.ipynb')]
        elif rel.endswith(PAGE_SUFFIXES): doc = posixpath.splitext(rel)[0]
        else: doc = rel  # text pages keep their suffix: LICENSE.html, CITATION.cff.html
        doc = self.claim(rel, doc)
        self.todo.append(rel)
        return doc

    def folder(self, rel:str) -> str:
        "The docname of a folder: its README.md's page, or a generated listing."
        rel = rel.rstrip('/')
        readme = posixpath.join(rel, 'README.md') if rel else 'README.md'
        if exists(readme): return self.page(readme)
        virtual = posixpath.join(rel, 'index.md') if rel else 'index.md'
        if virtual not in self.generated: self.generated[virtual] = lambda v=virtual: self.listing(v)
        return self.page(virtual)

    def raw(self, rel:str) -> str:
        "Copy a repository file into the site (and beside the sources, for Sphinx's images); its site path."
        if (self.extra / rel).exists(): return rel
        for base in (self.extra, self.src):
            dest = base / rel
            if not dest.exists(): dest.parent.mkdir(parents=True, exist_ok=True); shutil.copy2(ROOT / rel, dest)
        if rel.endswith('.html'): self.scripts(rel)
        return rel

    def scripts(self, rel:str):
        "Copy the local scripts the HTML file `rel` loads (a report's shared plotly.js) to their places in the site."
        for src in SCRIPT_SRC.findall((ROOT / rel).read_text(encoding='utf-8', errors='replace')):
            if SCHEME.match(src) or src.startswith(('/', '#')): continue
            dep = posixpath.normpath(posixpath.join(posixpath.dirname(rel), unquote(src.split('?')[0])))
            if exists(dep): self.raw(dep)
            else: self.unresolved.append((rel, src))

    def is_text(self, rel:str) -> bool:
        p = ROOT / rel
        if p.suffix.lower() not in TEXT_SUFFIXES or p.stat().st_size > 1_000_000: return False
        try: p.read_text(encoding='utf-8'); return True
        except UnicodeDecodeError: return False

    def url(self, rel:str) -> str:
        "Site path (from the site root) of repository path `rel` (an existing file or folder)."
        if rel in self.generated: return self.page(rel) + '.html'
        if (ROOT / rel).is_dir(): return self.folder(rel) + '.html'
        if rel.endswith(PAGE_SUFFIXES) or self.is_text(rel):
            if self.is_text(rel): self.raw(rel)
            return self.page(rel) + '.html'
        return self.raw(rel)

    def link_fn(self, rel:str, doc:str, from_root:bool=False):
        "A function mapping a link target written in repository file `rel` to its URL relative to page `doc`."
        base = posixpath.dirname(rel)
        def fn(target:str) -> str:
            t = target.strip()
            if not t or t.startswith(('#', '//')) or SCHEME.match(t): return target
            path, _, frag = t.partition('#')
            path = unquote(path.split('?')[0])
            cands = ([posixpath.normpath(path)] if from_root else []) + [posixpath.normpath(posixpath.join(base, path))]
            cands = ['' if c == '.' else c for c in cands]
            found = next((c for c in cands if c in self.generated or exists(c)), None)
            if found is None:
                self.unresolved.append((rel, target)); return target
            site_path = self.url(found)
            href = posixpath.relpath(site_path, posixpath.dirname(doc) or '.')
            return quote(href) + (f'#{frag}' if frag else '')
        return fn

    # -------------------------------------------------------- writers
    def write(self, rel:str, text:str):
        dest = self.src / rel
        dest.parent.mkdir(parents=True, exist_ok=True); dest.write_text(text, encoding='utf-8')

    def front(self, rel:str) -> str:
        return '' if rel in self.in_toc else '---\norphan: true\n---\n\n'

    def write_all(self):
        while self.todo:
            rel = self.todo.pop(0); doc = self.docnames[rel]
            try:
                if rel in self.generated: self.write_md(rel, doc, self.generated[rel]())
                elif rel.endswith('.ipynb'): self.write_nb(rel, doc)
                elif rel.endswith('.md'): self.write_md(rel, doc, (ROOT / rel).read_text(encoding='utf-8'))
                else: self.write_text_page(rel, doc)
            except Exception as e: sys.exit(f"build_docs: cannot read {rel}: {type(e).__name__}: {e}")

    def write_md(self, rel:str, doc:str, text:str):
        text = rewrite_markdown(text, self.link_fn(rel, doc))
        self.write(doc + '.md', self.front(rel) + text + ''.join('\n\n' + t for t in self.tocs.get(rel, [])) + '\n')

    def write_text_page(self, rel:str, doc:str):
        body = (ROOT / rel).read_text(encoding='utf-8')
        fence = '`' * max(3, 1 + max((len(m) for m in re.findall(r'`+', body)), default=0))
        name = posixpath.basename(rel)
        href = quote(posixpath.relpath(rel, posixpath.dirname(doc) or '.'))
        lang = TEXT_SUFFIXES[posixpath.splitext(rel)[1].lower()]
        self.write(doc + '.md', f"{self.front(rel)}# {name}\n\n`{rel}` in the repository ([raw file]({href})).\n\n"
                                f"{fence}{lang}\n{body}\n{fence}\n")

    def write_nb(self, rel:str, doc:str):
        path = self.sources.get(rel, ROOT / rel)
        nb = json.loads(path.read_text(encoding='utf-8'))
        md = self.link_fn(rel, doc, from_root=rel == INDEX_SRC)
        cells = []
        for c in nb['cells']:
            c = nbdev_cell(c)
            if c is None: continue
            tags = c.get('metadata', {}).get('tags', [])
            if 'remove-cell' in tags:  # the report's own docs (left out of report.html) document the notebook here
                c['metadata']['tags'] = [t for t in tags if t != 'remove-cell']
            if c['cell_type'] == 'markdown':
                text = make_readme.generated_blocks(src_text(c)) if rel == INDEX_SRC else src_text(c)
                if rel in self.titles: text = re.sub(r'^# .*$', '# ' + self.titles.pop(rel), text, count=1, flags=re.M)
                c['source'] = rewrite_markdown(text, md)
            elif c['cell_type'] == 'code':
                convert_outputs(c, md)
                sig = signatures(src_text(c)) if rel.startswith(f'{NBS}/lib/') and self.show_doc else None
                if sig:  # nbdev's show_doc, cheaply: the signature and docstring, the source folded under it
                    cells.append({'cell_type': 'markdown', 'metadata': {}, 'source': sig,
                                  **({'id': f'sig-{len(cells)}'} if 'id' in c else {})})
                    c.setdefault('metadata', {}).setdefault('tags', []).append('hide-input')
            cells.append(c)
        ids = nb.get('nbformat', 4) > 4 or nb.get('nbformat_minor', 0) >= 5  # cells carry ids from nbformat 4.5
        def cell(source, n): return {'cell_type': 'markdown', 'metadata': {}, 'source': source, **({'id': f'pe-docs-{n}'} if ids else {})}
        if title_of(cells) is None: cells.insert(0, cell(f'# {posixpath.basename(doc)}', 'title'))
        note = self.notes.get(rel)
        if note: cells.insert(1, cell(rewrite_markdown(note, md), 'note'))
        cells += [cell(s, f'toc-{i}') for i, s in enumerate(self.tocs.get(rel, []))]
        nb['cells'] = cells
        if rel not in self.in_toc: nb.setdefault('metadata', {})['orphan'] = True
        self.write(doc + '.ipynb', json.dumps(nb, ensure_ascii=False))

    def listing(self, virtual:str) -> str:
        "A generated page listing a folder: links to its files and subfolders."
        folder = posixpath.dirname(virtual)
        items = sorted(p for p in (ROOT / folder).iterdir() if not skipped(p))
        lines = [f'# `{folder}/`\n', f'The files in `{folder}/` of the repository.\n']
        for p in items:
            name = p.name + ('/' if p.is_dir() else '')
            lines.append(f'- [`{name}`]({quote(name)})')
        return '\n'.join(lines) + '\n'

def toctree(caption:str, entries:list, hidden=True) -> str:
    "A MyST toctree of (title, docname) entries."
    opts = f':caption: {caption}\n' + (':hidden:\n' if hidden else '') + ':maxdepth: 2\n'
    clean = lambda t: re.sub(r'[<>]', '', t)
    return '```{toctree}\n' + opts + '\n' + '\n'.join(f'{clean(t)} </{d}>' for t, d in entries) + '\n```'

def guide_pages() -> list:
    "docs/*.md but its README and deviations.md (under Committed results), in the order of README.md's last links."
    readme = (ROOT / 'README.md').read_text(encoding='utf-8') if (ROOT / 'README.md').exists() else ''
    pages = [p.relative_to(ROOT).as_posix() for p in notebooks(DOCS, '*.md')
             if p.name not in ('README.md', 'deviations.md')]
    return sorted(pages, key=lambda r: readme.rfind(f']({r}') % (len(readme) + 1))  # not linked: last, by name

def md_title(rel:str) -> str:
    "The first '# ' heading of the markdown file `rel` (its name if it has none)."
    m = re.search(r'^# (.+)$', (ROOT / rel).read_text(encoding='utf-8'), re.M)
    return plain(m.group(1)) if m else posixpath.basename(rel)

def nb_title(path:Path) -> str:
    try: return plain(title_of(json.loads(path.read_text(encoding='utf-8'))['cells']) or path.stem)
    except Exception: return path.stem

def is_families(d:Path) -> bool:
    "Does the committed study in `d` decide the families' hypotheses (H1-H3) rather than the paper's claims alone?"
    return (d / 'tables' / 'claims' / 'hypotheses.csv').exists()

def study_label(d:Path) -> str:
    "A committed study's sidebar entry: its folder and what it is."
    if is_families(d): return f'{d.name}: the families extension (H1-H3)'
    if d.name.startswith('cpu') and (d / 'manifest.json').exists(): return f'{d.name}: the {study_kind(d)} study'
    return f'{d.name} reproduction'

def readme_section(d:Path, heading:str) -> str:
    "The section `heading` (a '## ' line) of the study page `d/README.md`, up to the next '## ' heading ('' if absent)."
    text = (d / 'README.md').read_text(encoding='utf-8') if (d / 'README.md').exists() else ''
    m = re.search(rf'(?ms)^{re.escape(heading)}\n(.*?)(?=^## |\Z)', text)
    return m.group(1).strip() if m else ''

def families_head(d:Path) -> list:
    "The families page's opening: its title, what it is, and its H1-H3 verdict table (from the study page)."
    table = readme_section(d, '## Predictions and verdicts')
    return [f"# The families extension: three encodings beyond the paper's (`{d.name}`)\n",
            "**Our extension, not the paper's**: `cpe`, `rpb` and `rope-mixed` through the confirmatory protocol, paired "
            "by seed with the committed runs, deciding the hypotheses H1-H3 of its [pre-registration]"
            "(../../data/preregistration-families.md). The paper's own claims C1-C7 are in the confirmatory study.\n",
            '## The hypotheses H1-H3: predictions and verdicts\n', table + '\n' if table else '']

def results_page(name:str) -> str:
    "Markdown of the overview of reports/NAME (links relative to reports/NAME/): the report, the study, every figure."
    d = ROOT / 'reports' / name
    st = study_of(d) if (d / 'manifest.json').exists() else None
    kind = study_kind(d) if st is not None and d.name.startswith('cpu') else None
    title = f'The {kind} study' if kind else f'Committed results: `{name}`'
    lines = families_head(d) if is_families(d) else [f'# {title}\n']
    if kind and not is_families(d):
        lines.append(make_readme.study_banner(d).replace('](data/', '](../../data/') + '\n')
    lines.append(f'What the reproduction committed in `reports/{name}/`, as it is in the repository:\n')
    if (d / 'report.html').exists():
        lines.append('- **[The report](report.html)** (`report.html`): every claim with its parts and verdicts, every '
                     'figure (interactive), the tables beside the paper\'s')
    if (d / 'README.md').exists(): lines.append(f'- [What was run, and how](README.md) (`reports/{name}/README.md`)')
    for nb in notebooks(d / 'notebooks'):
        lines.append(f'- [`notebooks/{nb.name}`](notebooks/{quote(nb.name)}): {nb_title(nb)} (executed)')
    data = [p for p in sorted(d.iterdir()) if p.is_file() and p.suffix not in ('.md', '.html') and not skipped(p)]
    if data: lines.append('- data: ' + ', '.join(f'[`{p.name}`]({quote(p.name)})' for p in data))
    subs = [p for p in sorted(d.iterdir()) if p.is_dir() and p.name not in ('notebooks',) and not skipped(p)]
    if subs: lines.append('- folders: ' + ', '.join(f'[`{p.name}/`]({quote(p.name)}/)' for p in subs))
    figs = {p.stem: p for p in (d / 'figures').glob('*.png') if not skipped(p)} if (d / 'figures').is_dir() else {}
    if figs:
        listed = figure_list()
        order = [k for k in listed if k in figs] + sorted(k for k in figs if k not in listed)
        if is_families(d): order = [k for k in order if k.startswith('families')] + [k for k in order if not k.startswith('families')]
        lines.append('\n## Figures\n')
        lines.append(f'Every figure of the report as committed in `reports/{name}/figures/` (PNG), in the '
                     f'order of the analyses that draw them, each with the paper\'s figure or table it redraws.\n')
        lines.append('<div class="pe-docs-gallery">\n')
        for k in order:
            caption, paper = listed.get(k, (k, 'not mapped'))
            lines.append(f'\n**{k}**: {caption}. *The paper: {paper}.*\n\n![{k}: {caption}](figures/{quote(figs[k].name)})\n')
        lines.append('\n</div>')
    return '\n'.join(lines) + '\n'

def kernel_env(jobs:int, extra:dict|None=None) -> dict:
    "The executed notebooks' environment: IN_TEST, the plotly MIME renderer, one thread each if parallel."
    env = dict(os.environ, IN_TEST='1', PLOTLY_RENDERER='plotly_mimetype', PYTHONWARNINGS='ignore', **(extra or {}))
    if jobs > 1: env.update(OMP_NUM_THREADS='1', MKL_NUM_THREADS='1')
    return env

def execute(nbs:list, dest:Path, jobs:int) -> tuple:
    """Run `nbs` whole with papermill (default parameters, in their own folder), `jobs` at a time:
    ({repository path: executed copy}, [failed])."""
    dest.mkdir(parents=True, exist_ok=True)
    env = kernel_env(jobs)
    def run(nb:Path):
        out, t = dest / nb.name, time.time()
        r = subprocess.run([sys.executable, '-m', 'papermill', str(nb), str(out), '--cwd', str(nb.parent),
                            '--no-progress-bar'], env=env, capture_output=True, text=True)
        return nb, out, r, time.time() - t
    return collect(run, nbs, jobs, lambda nb, out: out)

def collect(run, items:list, jobs:int, keep) -> tuple:
    "`run` over `items`, `jobs` at a time; each success's `keep(notebook, executed copy)` by repository path, failures."
    done, failed = {}, []
    with ThreadPoolExecutor(max(1, jobs)) as ex:
        for nb, out, r, dt in ex.map(run, items):
            rel = nb.relative_to(ROOT).as_posix()
            print(f"  executed {rel} in {dt:.1f} s" + ('' if r.returncode == 0 else ' FAILED'), flush=True)
            if r.returncode == 0: done[rel] = keep(nb, out)
            else: failed.append(rel); print('\n'.join(r.stderr.strip().splitlines()[-15:]), file=sys.stderr)
    return done, failed

# ---------------------------------------------------------------- the committed results, rendered into the sections
def committed_key(nb:dict, stop:int) -> str:
    "The cache key of a notebook's committed-result cells: their sources, the committed files, the package source."
    h = hashlib.sha256(json.dumps([src_text(c) for c in nb['cells'][:stop]]).encode())
    for p in sorted([*COMMITTED.rglob('*'), *(ROOT / 'pe_anchor').glob('*.py')]):
        if p.is_file() and p.suffix in ('.csv', '.json', '.py'):
            h.update(p.relative_to(ROOT).as_posix().encode() + p.read_bytes())
    return h.hexdigest()[:16]

RUN_COMMITTED = ('import sys; from pe_anchor.engine.notebooks import run_committed; '
                 'run_committed(sys.argv[1], sys.argv[2], log=sys.argv[3], keep_setup=True)')  # one process a notebook
RUN_REPORT = ('import sys; from pe_anchor.engine.notebooks import run_notebook; '  # the report notebook, to its section's end
              'run_notebook(sys.argv[1], sys.argv[2], {}, log=sys.argv[3], until=int(sys.argv[4]))')

def render_committed(nbs:list, stage:Path, jobs:int) -> tuple:
    """Each notebook executed to the end of its committed-result section by `pe_anchor.engine.notebooks.run_committed` (the
    function that writes every reproduction's notebooks), its set-up outputs kept, the rest unexecuted; cached by
    `committed_key`: ({repository path: executed notebook}, [failed])."""
    todo, done = [], {}
    for path in nbs:
        nb = json.loads(path.read_text(encoding='utf-8'))
        stop = section_stop(path, nb['cells'])
        if stop is None: continue
        cached = CACHE / f'{path.stem}-{committed_key(nb, stop)}.ipynb'
        if cached.exists(): done[path.relative_to(ROOT).as_posix()] = cached
        else: todo.append((path, cached, stop))
    if not todo: return done, []
    print(f"rendering the committed results of {len(todo)} section notebooks ({jobs} at a time)", flush=True)
    dest = stage / 'committed'
    (stage / 'tmp').mkdir(parents=True, exist_ok=True)  # the notebooks' temporary folders (IN_TEST), go with the stage
    env = kernel_env(jobs, dict(TMPDIR=str(stage / 'tmp')))
    stops, cache = {p: n for p, _, n in todo}, {p: c for p, c, _ in todo}
    def run(path:Path):
        out, t = dest / path.name, time.time()
        args = [RUN_REPORT, str(path), str(out), str(dest / f'{path.stem}.log'), str(stops[path])] \
            if path.name == REPORT_NB else [RUN_COMMITTED, str(path), str(out), str(dest / f'{path.stem}.log')]
        r = subprocess.run([sys.executable, '-c', *args], env=env, capture_output=True, text=True)
        return path, out, r, time.time() - t
    def keep(path:Path, out:Path) -> Path:
        CACHE.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out, cache[path])
        return cache[path]
    ran, failed = collect(run, [p for p, _, _ in todo], jobs, keep)
    return done | ran, failed

def has_figure(path:Path|None) -> bool:
    "Does the notebook at `path` carry a figure output (plotly or PNG)?"
    if path is None: return False
    outs = [o for c in json.loads(path.read_text(encoding='utf-8'))['cells'] for o in c.get('outputs', [])]
    return any(PLOTLY_MIME in o.get('data', {}) or 'image/png' in o.get('data', {}) for o in outs)

def study_banner(executed:bool=False) -> str:
    "The note under a section page's title: which study its results come from, and what is not executed."
    st = study_of(COMMITTED)
    seeds = seed_range(st['seeds'])
    kind = study_kind(COMMITTED)
    why = ("It is decided by the rules of the [pre-registration](../data/preregistration-cpu.md), committed before any "
           "of its runs was trained; the exploratory study that chose the preset is in `reports/cpu-exploratory`. "
           if kind == 'confirmatory' else
           "It was used to choose the `cpu` preset, so its verdicts are exploratory; a pre-registered confirmatory "
           "study on fresh seeds is in progress ([pre-registration](../data/preregistration-cpu.md)). ")
    text = (f":::{{admonition}} Results on this page: the {kind} study\n:class: note\n\n"
            f"*The committed result* shows the **{kind} study** committed in `reports/cpu` (seeds {seeds}, "
            f"{len(st['seeds'])} per condition, finished {st['date']}), rendered from its SHA-checked tables. " + why)
    text += ("The cells under *Run it* ran here with the notebook's defaults (the seconds-long `smoke` preset): "
             "**a plumbing check, not a result**.\n:::" if executed else
             "The cells under *Run it* are shown unexecuted: they run the experiment (by default the seconds-long "
             "`smoke` preset, a plumbing check) when you run the notebook.\n:::")
    return text

def build(out:Path, stage:Path, execute_nbs:bool=False, jobs:int=1, committed:bool=True) -> int:
    t0 = time.time()
    if out.exists() and any(out.iterdir()) and not (out / OUT_MARK).exists():
        sys.exit(f"{out} exists and is not a site built by this script: refusing to replace it")
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True); (out / OUT_MARK).touch()
    site, nbs = Site(stage), ROOT / NBS
    rel = lambda p: p.relative_to(ROOT).as_posix()
    sections = [p for p in notebooks(nbs) if p.name != README_NB]
    groups = [('Sections', sections), ('Library', notebooks(nbs / 'lib'))]
    for d in sorted(nbs.iterdir()):  # any other nbs/ subfolder: a section of its own, after the library
        if d.is_dir() and d.name != 'lib' and not skipped(d):
            groups.append((d.name.replace('_', ' ').capitalize(), [p for p in sorted(d.rglob('*.ipynb')) if not skipped(p)]))
    failed, t_exec = [], 0.0
    if committed and not execute_nbs and sections:
        te = time.time()
        site.sources, failed = render_committed(sections, stage, jobs)
        t_exec = time.time() - te
    if execute_nbs and sections:
        print(f"executing {len(sections)} section notebooks (smoke defaults, {jobs} at a time)", flush=True)
        te = time.time()
        site.sources, failed = execute(sections, stage / 'executed', jobs)
        t_exec = time.time() - te
    toc_rels = [INDEX_SRC]
    site.page(INDEX_SRC)
    expect = {'index': 'the verdict table'}  # docname -> what it must carry
    for p in sections:
        r, has = rel(p), section_stop(p, json.loads(p.read_text(encoding='utf-8'))['cells']) is not None
        if has and (committed or execute_nbs):
            figs = has_figure(site.sources.get(r))
            site.notes[r] = study_banner(execute_nbs); expect[site.page(r)] = 'a committed figure' if figs else 'committed results'
        elif execute_nbs: site.notes[r] = SMOKE_NOTE
    report_nb = next((p for p in sections if p.name == REPORT_NB), None)
    if report_nb is not None:
        site.notes[rel(report_nb)] = smoke_report_note() if execute_nbs else report_note()
    def entry(p:Path) -> tuple:
        toc_rels.append(rel(p))
        title = nb_title(site.sources.get(rel(p), p))
        if execute_nbs and p.name == REPORT_NB: title = site.titles[rel(p)] = SMOKE_REPORT_TITLE
        return f'{p.stem}: {title}', site.page(rel(p))
    tocs = [toctree(caption, [entry(p) for p in nbs_in]) for caption, nbs_in in groups if nbs_in]
    guides = guide_pages()  # the pages README.md links for what it leaves out, after the sections
    if guides: tocs.insert(1, toctree('Guides', [(md_title(r), site.page(r)) for r in guides])); toc_rels += guides
    results = []
    for d in sorted(p for p in (ROOT / 'reports').glob('*') if p.is_dir()) if (ROOT / 'reports').is_dir() else []:
        if skipped(d) or not (notebooks(d / 'notebooks') or (d / 'report.html').exists()): continue
        name = d.name
        virtual = f'reports/{name}/' + ('overview.md' if (d / 'index.md').exists() else 'index.md')
        site.generated[virtual] = lambda n=name: results_page(n)
        results.append((study_label(d), site.page(virtual))); toc_rels.append(virtual); expect[site.page(virtual)] = 'committed results'
        if d == COMMITTED and exists('docs/deviations.md'):
            results.append(('Deviations from the paper', site.page('docs/deviations.md'))); toc_rels.append('docs/deviations.md')
        sub = []
        if (d / 'README.md').exists():
            sub.append(('What was run', site.page(rel(d / 'README.md')))); toc_rels.append(rel(d / 'README.md'))
        for nb in notebooks(d / 'notebooks'):
            r = rel(nb); twin = nbs / nb.name
            sub.append((f'{nb.stem} (executed)', site.page(r))); toc_rels.append(r)
            expect[site.page(r)] = 'committed results'
            st = study_of(d) if (d / 'manifest.json').exists() else None
            study = (f"the {study_kind(d)} study, seeds {seed_range(st['seeds'])}, finished "
                     f"{st['date']}" if st and name.startswith('cpu') else f'the `{name}` reproduction')
            site.notes[r] = (f'*The executed copy committed in `{r}` ({study}), with the outputs '
                             f'as they were written; see [the results overview](../{posixpath.basename(virtual)})'
                             + (f' and [the notebook itself](../../../{NBS}/{nb.name})' if twin.exists() and not skipped(twin) else '')
                             + '.*')
        site.tocs[virtual] = [toctree(f'{name} reproduction', sub)]
    if results: tocs.append(toctree('Committed results', results))
    site.tocs[INDEX_SRC] = tocs
    site.in_toc.update(toc_rels)
    site.write_all()
    t_stage = time.time() - t0 - t_exec
    from sphinx.cmd.build import build_main
    os.environ['PE_ANCHOR_DOCS_STAGE'] = str(stage)
    warnings.filterwarnings('ignore', message='Cell is missing an id field')  # nbdev strips cell ids (clean_ids)
    ts, log = time.time(), stage / 'sphinx-warnings.txt'
    rc = build_main(['-b', 'html', '-c', str(DOCS), '-d', str(stage / 'doctrees'), '-q',
                     '-w', str(log), str(site.src), str(out)])
    t_sphinx = time.time() - ts
    shutil.rmtree(out / 'jupyter_execute', ignore_errors=True)  # MyST-NB's copies of the notebooks: not for readers
    (out / EXPECT).write_text(json.dumps({f'{d}.html': what for d, what in expect.items()}, indent=1), encoding='utf-8')
    pages = len(list(out.rglob('*.html'))) if out.exists() else 0
    n_warn = len([l for l in log.read_text().splitlines() if 'WARNING' in l]) if log.exists() else 0
    if n_warn: print('Sphinx warnings:\n' + '\n'.join(log.read_text().splitlines()[:60]).replace(str(site.src) + '/', ''))
    for page, link in site.unresolved: print(f"unresolved link in {page}: {link}")
    print(f"docs built in {out}: {pages} HTML files, {len(site.unresolved)} unresolved links, {n_warn} Sphinx "
          f"warnings; {time.time() - t0:.1f} s (execute {t_exec:.1f} s, stage {t_stage:.1f} s, sphinx {t_sphinx:.1f} s)")
    if failed: print(f"notebooks that failed to execute: {', '.join(failed)}", file=sys.stderr)
    return 1 if rc or failed or site.unresolved else 0

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', default=str(ROOT / '_site'), help='where the site goes (default: _site)')
    ap.add_argument('--execute', action='store_true', help='execute the top-level section notebooks (smoke defaults)')
    ap.add_argument('--jobs', type=int, default=1, help='notebooks executed at a time with --execute (default 1)')
    ap.add_argument('--stage', help='keep the staged sources here (default: a temporary folder, removed)')
    ap.add_argument('--no-results', action='store_true', help='do not render the committed results (prose only)')
    a = ap.parse_args(argv)
    stage = Path(a.stage).resolve() if a.stage else Path(tempfile.mkdtemp(prefix='pe_anchor-docs-'))
    if a.stage:
        if stage.exists() and any(stage.iterdir()) and not (stage / STAGE_MARK).exists():
            sys.exit(f"{stage} exists and is not a staging folder of this script: refusing to replace it")
        shutil.rmtree(stage, ignore_errors=True); stage.mkdir(parents=True)
    (stage / STAGE_MARK).touch()
    try: return build(Path(a.out).resolve(), stage, a.execute, a.jobs, not a.no_results)
    finally:
        if not a.stage: shutil.rmtree(stage, ignore_errors=True)

if __name__ == '__main__': sys.exit(main())
