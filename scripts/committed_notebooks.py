"""Write the executed section notebooks of the committed reproduction into `reports/cpu/notebooks/`.

    python scripts/committed_notebooks.py           # after a merge into reports/cpu (the report notebook is already there)
    python scripts/committed_notebooks.py --check   # exit 1 if a committed copy is missing or names a machine path

Each top-level section notebook with a "## The committed result" section (01-07) has the cells up to the end of that
section executed with its parameters at their defaults, which point at `reports/cpu` and only read its SHA-checked
tables (the same execution, and the same cache, as the docs site: `scripts/build_docs.py`, `render_committed`); the
cells after it (the experiment, by default the seconds-long `smoke` preset) are kept unexecuted, and the outputs of
the set-up cells before it are dropped (they describe a plumbing run, not the committed result). The report notebook
`08_claims.ipynb` is written by the merge itself. A copy that names a path of this machine (the checkout, a temporary
folder, the home folder) is refused: the committed notebooks carry no machine paths.
"""
import argparse, json, sys, tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / 'scripts'))
import build_docs  # noqa: E402  (the docs site's execution of the committed-result sections)

DEST = build_docs.COMMITTED / 'notebooks'

def machine_paths(text:str) -> list:
    "The machine paths a notebook's text names (this checkout, the temporary folder, the home folder)."
    roots = {str(ROOT), tempfile.gettempdir() + '/', str(Path.home()) + '/'}
    return sorted(r for r in roots if r in text)

def committed_only(nb:dict) -> dict:
    """The notebook with outputs only in its committed-result section: the cells before it (parameters, imports, the
    set-up that prints where a plumbing run would write) ran but their outputs are dropped."""
    heads = [i for i, c in enumerate(nb['cells']) if c['cell_type'] == 'markdown'
             and any(l.strip() == build_docs.COMMITTED_HEADING for l in build_docs.src_text(c).splitlines())]
    for c in nb['cells'][:heads[0] if heads else 0]:
        if c['cell_type'] == 'code': c['outputs'], c['execution_count'] = [], None
    return nb

def sections() -> list:
    "The top-level section notebooks that have a committed-result section."
    nbs = build_docs.notebooks(ROOT / build_docs.NBS)
    return [p for p in nbs if build_docs.committed_stop(json.loads(p.read_text(encoding='utf-8'))['cells']) is not None]

def write(jobs:int) -> int:
    "Execute and copy every section's committed result into `DEST`; 1 if one failed or names a machine path."
    with tempfile.TemporaryDirectory(prefix='pe_anchor-committed-') as stage:
        done, failed = build_docs.render_committed(sections(), Path(stage), jobs)
    bad = list(failed)
    DEST.mkdir(parents=True, exist_ok=True)
    for rel, path in sorted(done.items()):
        text = json.dumps(committed_only(json.loads(path.read_text(encoding='utf-8'))), indent=1, ensure_ascii=False)
        if machine_paths(text): bad.append(f"{rel} names {', '.join(machine_paths(text))}"); continue
        (DEST / Path(rel).name).write_text(text + '\n', encoding='utf-8')
        print(f"wrote {(DEST / Path(rel).name).relative_to(ROOT)}")
    for b in bad: print(f"FAILED: {b}", file=sys.stderr)
    return 1 if bad else 0

def check() -> int:
    "1 if a section's committed copy is missing or any committed notebook names a machine path."
    missing = [p.name for p in sections() if not (DEST / p.name).exists()]
    named = [f"{p.name}: {', '.join(machine_paths(p.read_text(encoding='utf-8')))}"
             for p in sorted(DEST.glob('*.ipynb')) if machine_paths(p.read_text(encoding='utf-8'))]
    for m in missing: print(f"missing: {DEST.relative_to(ROOT)}/{m}")
    for n in named: print(f"names a machine path: {n}")
    return 1 if missing or named else 0

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--check', action='store_true', help='only check the committed copies')
    ap.add_argument('--jobs', type=int, default=1, help='notebooks executed at a time (default 1)')
    a = ap.parse_args()
    sys.exit(check() if a.check else write(a.jobs))
