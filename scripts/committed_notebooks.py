"""Write the executed section notebooks of the committed reproduction into `reports/cpu/notebooks/`.

    python scripts/committed_notebooks.py           # after a merge into reports/cpu (the report notebook is already there)
    python scripts/committed_notebooks.py --check   # exit 1 if a committed copy is missing or names a machine path

Each top-level section notebook with a "## The committed result" section (01-07) is executed by
`pe_anchor.engine.notebooks.run_committed`, the one function that also writes a reproduction's own `notebooks/`
(`reproduce(..., notebooks=True)`): its cells up to the end of that section run with its parameters at their
defaults, which point at `reports/cpu` and only read its SHA-checked tables and per-run results; the cells after it
(the experiment, by default the seconds-long `smoke` preset) are kept unexecuted, and the outputs of the set-up cells
before it are dropped (they describe a plumbing run, not the committed result). A figure of the study
(`committed_figures`) is a link to its PNG in `reports/cpu/figures/` (`link_saved_figures`), not a second copy.
The report notebook `08_claims.ipynb` is written by the merge itself. A copy that names a path of this machine (the
checkout, a temporary folder, the home folder) is refused: the committed notebooks carry no machine paths.
"""
import argparse, sys, tempfile
from pathlib import Path
from pe_anchor.engine.notebooks import committed_notebooks, link_saved_figures, run_committed

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / 'reports' / 'cpu' / 'notebooks'

def machine_paths(text:str) -> list:
    "The machine paths a notebook's text names (this checkout, the temporary folder, the home folder)."
    roots = {str(ROOT), tempfile.gettempdir() + '/', str(Path.home()) + '/'}
    return sorted(r for r in roots if r in text)

def write() -> int:
    "Execute and copy every section's committed result into `DEST`; 1 if one failed or names a machine path."
    bad = []
    DEST.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix='pe_anchor-committed-') as stage:
        for nb in committed_notebooks():
            try: done = run_committed(nb, Path(stage) / nb.name, log=Path(stage) / 'papermill.log')
            except RuntimeError as e: bad.append(f"{nb.name}: {e}"); continue
            link_saved_figures(done, cwd=ROOT, folder=DEST)  # the study's figures: links to its PNGs, not copies
            text = done.read_text(encoding='utf-8')
            if machine_paths(text): bad.append(f"{nb.name} names {', '.join(machine_paths(text))}"); continue
            (DEST / nb.name).write_text(text, encoding='utf-8')
            print(f"wrote {(DEST / nb.name).relative_to(ROOT)}", flush=True)
    for b in bad: print(f"FAILED: {b}", file=sys.stderr)
    return 1 if bad else 0

def check() -> int:
    "1 if a section's committed copy is missing or any committed notebook names a machine path."
    missing = [p.name for p in committed_notebooks() if not (DEST / p.name).exists()]
    named = [f"{p.name}: {', '.join(machine_paths(p.read_text(encoding='utf-8')))}"
             for p in sorted(DEST.glob('*.ipynb')) if machine_paths(p.read_text(encoding='utf-8'))]
    for m in missing: print(f"missing: {DEST.relative_to(ROOT)}/{m}")
    for n in named: print(f"names a machine path: {n}")
    return 1 if missing or named else 0

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--check', action='store_true', help='only check the committed copies')
    a = ap.parse_args()
    sys.exit(check() if a.check else write())
