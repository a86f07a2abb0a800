"""Recompute some runs' per-run results of a committed part with the current code, and compare them byte for byte.

    python scripts/recompute_part.py reports/cpu-parts/seed-100 --conditions ape

A change that should leave the numbers alone (a refactor, a repetition removed) must pass this on a committed part:
every table of every analysis of the chosen runs is computed again into a temporary folder, from the runs in the run
cache (trained by the part; not trained again here), and compared with the committed file. Prints one line per file
and exits 1 when any differs. Only the tables are compared: each result's `record.json` holds its own timings."""
import argparse, json, sys, tempfile, time
from pathlib import Path

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('part', help='a committed part folder (its manifest.json and results/)')
    ap.add_argument('--conditions', default='ape', help="conditions of the part's runs to recompute (comma list)")
    ap.add_argument('--workers', type=int, default=1, help='local worker processes (default 1)')
    a = ap.parse_args()
    from pe_anchor.study import study_from_dict
    from pe_anchor.config import parse_conditions
    from pe_anchor.parts import compute_part
    from pe_anchor.executor import make_executor
    part = Path(a.part)
    study = study_from_dict(json.loads((part / 'manifest.json').read_text())['plan']['study'])
    conditions = parse_conditions(a.conditions)
    keys = [k for k in study.run_keys if k[0] in conditions]
    if not keys: sys.exit(f"no run of {part} has a condition in {conditions}; its runs: {study.run_keys}")
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix='pe_anchor-recompute-') as d:
        compute_part(study, Path(d) / 'part', keys=keys, executor=make_executor(workers=a.workers), progress=False)
        new = sorted(p.relative_to(Path(d) / 'part') for p in (Path(d) / 'part' / 'results').rglob('*.csv'))
        bad = 0
        for rel in new:
            old = part / rel
            same = old.exists() and old.read_bytes() == (Path(d) / 'part' / rel).read_bytes()
            bad += not same
            print(f"{'same' if same else 'DIFFERS'} {rel}")
    print(f"{len(new) - bad} of {len(new)} tables byte-identical ({time.time() - t0:.0f} s)")
    sys.exit(1 if bad or not new else 0)

if __name__ == '__main__': main()
