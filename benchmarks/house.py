"""Measure the size of the house (issue 51): the package, its notebooks' exported cells, the scripts, tracked bytes.

    python benchmarks/house.py [--commit REV] [--out benchmarks/house.csv]

Reads the files of a commit (default: HEAD) through git, so two commits are measured by the same code. Prints one
row and appends it to the CSV: modules and sub-packages of `pe_anchor`, their lines (`_modidx.py` and `__init__.py`
aside) and the lines written in the notebooks (nbdev's `# %%` cell markers aside), public names (`__all__`), exported
cells (median lines, median definitions, cells with three or more definitions, exports with no code cell after them
before the next export, docstrings over several lines), `;` statement joins in exported code, import arrows between
the package's modules, `scripts/` files and lines, tracked bytes and the bytes of tracked files that are exact copies
of another tracked file.
"""
import argparse, ast, hashlib, io, json, re, statistics, subprocess, sys, tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / 'scripts'))
from run_tests import written_lines  # the module-size check's count: nbdev's cell markers aside


def git(*args) -> bytes:
    return subprocess.run(['git', *args], cwd=ROOT, capture_output=True, check=True).stdout


def tracked(rev:str) -> dict:
    "{path: blob sha} of every tracked file at `rev` (with sizes read later)."
    out = {}
    for line in git('ls-tree', '-r', '-l', rev).decode().splitlines():
        meta, path = line.split('\t', 1)
        _, kind, sha, size = meta.split()
        if kind == 'blob': out[path] = (sha, int(size))
    return out


def show(rev:str, path:str) -> str:
    return git('show', f'{rev}:{path}').decode('utf-8', 'replace')


def exported_cells(nb:dict) -> list:
    "(source, is the next code cell an example) of every exported code cell."
    code = [c for c in nb['cells'] if c['cell_type'] == 'code']
    src = lambda c: ''.join(c['source'])
    exported = lambda c: re.match(r'\s*#\|\s*export', src(c)) is not None
    out = []
    for i, c in enumerate(code):
        if not exported(c): continue
        nxt = code[i + 1] if i + 1 < len(code) else None
        out.append((src(c), nxt is not None and not exported(nxt) and 'hide' not in src(nxt)[:20]))
    return out


def definitions(src:str) -> int:
    try: tree = ast.parse(re.sub(r'^\s*#\|.*$', '', src, flags=re.M))
    except SyntaxError: return 0
    return sum(isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) for n in tree.body)


def long_docstrings(src:str) -> int:
    "Docstrings of definitions that span more than one line."
    try: tree = ast.parse(re.sub(r'^\s*#\|.*$', '', src, flags=re.M))
    except SyntaxError: return 0
    defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))]
    return sum('\n' in (ast.get_docstring(n, clean=False) or '').strip() for n in defs)


def joins(src:str) -> int:
    """Statements joined by `;` (Python's tokenizer: a `;` in a string, a docstring or a comment is none; until
    2026-12-05 a line-based count also took the `;` of docstrings and of strings with escaped quotes)."""
    code = re.sub(r'^\s*#\|.*$', '', src, flags=re.M)
    try: tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError): return 0
    return sum(t.type == tokenize.OP and t.string == ';' for t in tokens)


def measure(rev:str) -> dict:
    files = tracked(rev)
    mods = [p for p in files if p.startswith('pe_anchor/') and p.endswith('.py')
            and not p.endswith(('_modidx.py', '__init__.py'))]
    texts = {p: show(rev, p) for p in mods}
    names = 0
    for t in texts.values():
        m = re.search(r'__all__\s*=\s*\[(.*?)\]', t, re.S)
        names += len(re.findall(r"'[^']+'", m.group(1))) if m else 0
    arrows = set()
    for p, t in texts.items():
        me = p[:-3].replace('/', '.')
        for m in re.finditer(r'^\s*from\s+(\.+[\w.]*|pe_anchor[\w.]*)\s+import', t, re.M):
            target = m.group(1)
            if target.startswith('.'):  # relative: resolved from the module's own package
                dots = len(target) - len(target.lstrip('.'))
                target = '.'.join(me.split('.')[:-dots] + [target.lstrip('.')]).rstrip('.')
            if target != me: arrows.add((me, target))
    cells = []
    for p in [p for p in files if p.startswith('nbs/') and p.endswith('.ipynb')]:
        cells += exported_cells(json.loads(show(rev, p)))
    lines = [len(s.splitlines()) - 1 for s, _ in cells]
    defs = [definitions(s) for s, _ in cells]
    scripts = [p for p in files if p.startswith('scripts/') and p.endswith(('.py', '.sh'))]
    by_sha = {}
    for p, (sha, size) in files.items(): by_sha.setdefault(sha, []).append(size)
    dup = sum(sum(s[1:]) for s in by_sha.values() if len(s) > 1)
    return dict(commit=git('rev-parse', '--short', rev).decode().strip(), modules=len(mods),
                subpackages=len({Path(p).parent for p in mods}) - 1,
                module_lines=sum(len(t.splitlines()) for t in texts.values()),
                module_written_lines=sum(written_lines(t) for t in texts.values()), public_names=names,
                exported_cells=len(cells), cell_lines_median=statistics.median(lines),
                defs_per_cell_median=statistics.median(defs), cells_3plus_defs=sum(d >= 3 for d in defs),
                exports_without_example=sum(not ex for _, ex in cells),
                multiline_docstrings=sum(long_docstrings(s) for s, _ in cells),
                semicolon_joins=sum(joins(s) for s, _ in cells),
                import_arrows=len(arrows), script_files=len(scripts),
                script_lines=sum(len(show(rev, p).splitlines()) for p in scripts),
                tracked_mb=round(sum(s for _, s in files.values()) / 1e6, 1), duplicate_mb=round(dup / 1e6, 1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--commit', default='HEAD')
    ap.add_argument('--out', default=str(ROOT / 'benchmarks' / 'house.csv'))
    args = ap.parse_args()
    row = measure(args.commit)
    print(json.dumps(row))
    out = Path(args.out)
    head = not out.exists()
    with out.open('a') as f:
        if head: f.write(','.join(row) + '\n')
        f.write(','.join(str(v) for v in row.values()) + '\n')


if __name__ == '__main__': main()
