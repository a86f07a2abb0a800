"""Sphinx configuration of pe_anchor's docs site. Not run directly: `python scripts/build_docs.py` stages the notebooks
(links mapped, nbdev directives applied, plotly outputs made drawable) into a source folder and runs Sphinx with
`-c docs`; it passes the staging folder in PE_ANCHOR_DOCS_STAGE. Everything the site needs is served by the site
itself (plotly.js from the installed plotly, MathJax 3 from sphinx-mathjax-offline): no CDN at build or view time."""
import configparser, os, re, shutil, unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGE = Path(os.environ.get('PE_ANCHOR_DOCS_STAGE', ROOT / '_site_stage'))
_ini = configparser.ConfigParser(); _ini.read(ROOT / 'settings.ini')
_cfg = _ini['DEFAULT']

project = _cfg.get('lib_name', 'pe_anchor')
author = _cfg.get('author', '')
copyright = _cfg.get('copyright', '')
release = version = _cfg.get('version', '')
html_title = f"{project} {version}"

extensions = ['myst_nb', 'sphinx.ext.mathjax', 'sphinx.ext.githubpages']
source_suffix = {'.ipynb': 'myst-nb', '.md': 'myst-nb'}
root_doc = 'index'
exclude_patterns = ['**.ipynb_checkpoints']
suppress_warnings = ['myst.header', 'misc.highlighting_failure']

# MyST: build_docs.py has already rewritten every local link to its URL in the site, so links are written as they are
myst_all_links_external = True
myst_enable_extensions = ['dollarmath', 'amsmath', 'colon_fence', 'strikethrough']
myst_dmath_double_inline = True
myst_dmath_allow_space = myst_dmath_allow_digits = False  # the report's rule (pe_anchor.base.render.MATH): `$5 and $6`
# is prose, a formula has no space inside its dollars and no letter or digit right outside them

# MyST-NB: never execute here (build_docs.py --execute runs the notebooks with papermill first)
nb_execution_mode = 'off'
nb_output_stderr = 'remove'        # progress bars and warnings: not for readers
nb_merge_streams = True
nb_render_markdown_format = 'myst'

html_theme = 'furo'
html_static_path = ['static']
html_css_files = ['pe_docs.css']
html_js_files = ['pe_docs.js']  # long display equations set smaller until they fit the column
html_copy_source = False
html_show_sourcelink = False
html_last_updated_fmt = None
html_extra_path = [str(STAGE / 'extra')] if (STAGE / 'extra').is_dir() else []
html_theme_options = {'navigation_with_keys': True}

# MathJax 3 served by the site (the files of sphinx-mathjax-offline), never from a CDN
mathjax_path = 'mathjax/tex-chtml.js'
MATHJAX_PARTS = ('tex-chtml.js', 'input', 'output/chtml', 'ui', 'a11y', 'sre', 'adaptors')

def mathjax_source() -> Path:
    "The MathJax 3 tree shipped by sphinx-mathjax-offline (a module whose name has dashes, so found by its path)."
    import site, sysconfig
    dirs = {sysconfig.get_paths()['purelib'], sysconfig.get_paths()['platlib'], *site.getsitepackages()}
    for d in dirs:
        p = Path(d) / 'sphinx-mathjax-offline' / 'static' / 'mathjax'
        if (p / 'tex-chtml.js').exists(): return p
    raise FileNotFoundError("MathJax not found: pip install sphinx-mathjax-offline (the docs serve MathJax themselves)")

def plotly_js() -> Path:
    "plotly.min.js of the installed plotly: the same version that wrote the notebooks' figures."
    import plotly
    return Path(plotly.__file__).parent / 'package_data' / 'plotly.min.js'

def copy_assets(app, exc):
    "Copy MathJax and plotly.js into _static after a successful build."
    if exc is not None or app.builder.format != 'html': return
    static = Path(app.outdir) / '_static'
    src = mathjax_source()
    for part in MATHJAX_PARTS:
        s, d = src / part, static / 'mathjax' / part
        if s.is_dir(): shutil.copytree(s, d, dirs_exist_ok=True)
        elif s.exists(): d.parent.mkdir(parents=True, exist_ok=True); shutil.copy2(s, d)
    shutil.copy2(plotly_js(), static / 'plotly.min.js')

PLOTLY_MARKERS = ('Plotly.newPlot', 'Plotly.react', 'class="plotly-graph-div"', 'pe-docs-plotly')

def page_js(app, pagename, templatename, context, doctree):
    """Load plotly.js in the <head> (furo puts its scripts at the end of <body>, after the figures' inline scripts)
    on pages that draw plotly figures only."""
    body = context.get('body', '')
    if any(m in body for m in PLOTLY_MARKERS):
        src = context['pathto']('_static/plotly.min.js', 1)
        context['metatags'] = context.get('metatags', '') + f'\n<script src="{src}"></script>'

def github_slug(text:str) -> str:
    "The anchor GitHub gives a heading (README links use these)."
    text = unicodedata.normalize('NFKC', text).strip().lower()
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')

def add_heading_anchors(app, doctree):
    """Give every section the ids GitHub (README links) and Jupyter (links in notebooks, e.g. `#Beyond-the-paper`)
    give a heading, besides Sphinx's own, so links written for either land on it."""
    from docutils import nodes
    seen = set()
    for sec in doctree.findall(nodes.section):
        title = sec.next_node(nodes.title)
        if title is None: continue
        slug = base = github_slug(title.astext())
        n = 1
        while slug in seen: slug = f'{base}-{n}'; n += 1
        seen.add(slug)
        for anchor in (slug, title.astext().strip().replace(' ', '-')):
            if anchor and anchor not in sec['ids']: sec['ids'].append(anchor)

def setup(app):
    app.connect('build-finished', copy_assets)
    app.connect('html-page-context', page_js)
    app.connect('doctree-read', add_heading_anchors)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
