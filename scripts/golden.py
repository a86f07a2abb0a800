"""The golden result: the smoke study of `pe_anchor.parts.golden_study()` computed whole, its tables and claims kept in
`data/golden-smoke/`, so that a change of any per-run number without a bump of `RESULTS_VERSION` fails the tests.

    python scripts/golden.py --write            # (re)make data/golden-smoke/ (after a RESULTS_VERSION bump)
    python scripts/golden.py --compare DIR      # compare a merged smoke study in DIR with the golden tables
    python scripts/golden.py --measure          # the same study on this CPU's widest kernels and on AVX2 kernels
                                                # (torch, MKL and oneDNN limited to AVX2): the largest differences
    python scripts/golden.py --here OUT.csv     # the same study on this machine's default device (CUDA where there
                                                # is one), compared: its differences written to OUT.csv

Numbers are compared within `TOLERANCE` (absolute), which covers the low bits in which two CPUs differ (measured by
--measure, recorded in benchmarks/golden_tolerance.csv); identities and verdicts are compared exactly.
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time
from pathlib import Path
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / 'data' / 'golden-smoke'
TOLERANCE = 0.02  # absolute; see benchmarks/golden_tolerance.csv for the measured differences between CPU kernels
EXACT = ('condition', 'seed', 'claim', 'estimator', 'part', 'role', 'corruption', 'severity', 'permuted', 'half',
         'checkpoint', 'layer', 'alpha', 'epoch', 'trained', 'part_verdict', 'verdict_batch', 'verdict_image',
         'verdict_at_severity', 'paper_meets')
AVX2 = dict(ATEN_CPU_CAPABILITY='avx2', MKL_ENABLE_INSTRUCTIONS='AVX2', ONEDNN_MAX_CPU_ISA='AVX2')  # an AVX2 machine:
# torch's own kernels, MKL's and oneDNN's each limited to AVX2
FREE_TEXT = ('note', 'statistic', 'claim_text', 'threshold', 'ci_method', 'setting', 'preset', 'figure', 'status')


def compute(dest:Path, env:dict|None=None) -> Path:
    "The golden smoke study computed whole (a part of every run, merged without a report) into `dest`."
    code = ("import sys; from pe_anchor.parts import golden_study, compute_part; from pe_anchor.merge import merge_parts; "
            "d = sys.argv[1]; s = golden_study(); "
            "compute_part(s, d + '/part', cache_root=d + '/cache', executor=dict(kind='local', workers=1), progress=False); "
            "merge_parts([d + '/part'], d + '/merged', report=False, progress=False)")
    subprocess.run([sys.executable, '-c', code, str(dest)], check=True, cwd=ROOT, env=dict(os.environ, **(env or {})))
    return dest / 'merged'


def tables(folder:Path) -> dict:
    "{relative name: DataFrame} of a merged study's tables and claims (or of the golden folder)."
    files = sorted(folder.glob('tables/**/*.csv')) + sorted(folder.glob('claims.csv'))
    return {f.relative_to(folder).as_posix(): pd.read_csv(f) for f in files if 'tables/claims/' not in f.as_posix()}


def differences(a:dict, b:dict) -> pd.DataFrame:
    "Per table and numeric column: the largest absolute difference; identities and verdicts: mismatching cells."
    rows = []
    for name in sorted(set(a) | set(b)):
        if name not in a or name not in b:
            rows.append(dict(table=name, column='(file)', max_abs=np.inf, mismatches=1)); continue
        x, y = a[name], b[name]
        if list(x.columns) != list(y.columns) or len(x) != len(y):
            rows.append(dict(table=name, column='(shape)', max_abs=np.inf, mismatches=1)); continue
        for c in x.columns:
            if c in FREE_TEXT: continue
            if c in EXACT or not (pd.api.types.is_numeric_dtype(x[c]) and pd.api.types.is_numeric_dtype(y[c])):
                bad = int((x[c].fillna('').astype(str) != y[c].fillna('').astype(str)).sum())
                if bad: rows.append(dict(table=name, column=c, max_abs=np.nan, mismatches=bad))
                continue
            d = (x[c].astype(float) - y[c].astype(float)).abs()
            both_nan = x[c].isna() & y[c].isna()
            one_nan = x[c].isna() ^ y[c].isna()
            rows.append(dict(table=name, column=c, max_abs=float(d[~both_nan].max()) if (~both_nan).any() else 0.0,
                             mismatches=int(one_nan.sum())))
    return pd.DataFrame(rows, columns=['table', 'column', 'max_abs', 'mismatches'])


def problems(folder:Path) -> list:
    "Why the merged smoke study in `folder` does not match the golden result ('' list if it does)."
    sys.path.insert(0, str(ROOT))
    from pe_anchor.units import RESULTS_VERSION
    meta = json.loads((GOLDEN / 'golden.json').read_text())
    if meta['results_version'] != RESULTS_VERSION:
        return [f"{GOLDEN / 'golden.json'} holds results version {meta['results_version']}, the code computes "
                f"{RESULTS_VERSION}: run python scripts/golden.py --write"]
    d = differences(tables(GOLDEN), tables(folder))
    bad = d[(d.max_abs > TOLERANCE) | (d.mismatches > 0)]
    return [f"{GOLDEN / r.table}: column {r.column} differs (largest |difference| {r.max_abs:.3g}, {r.mismatches} "
            f"cells that must be equal) without a RESULTS_VERSION bump" for r in bad.itertuples()]


def write():
    "Make data/golden-smoke/ from a fresh computation."
    sys.path.insert(0, str(ROOT))
    from pe_anchor.units import RESULTS_VERSION
    from pe_anchor.parts import GOLDEN_SETTINGS
    from pe_anchor.machine import provenance
    with tempfile.TemporaryDirectory(prefix='pe_anchor-golden-') as d:
        merged = compute(Path(d))
        shutil.rmtree(GOLDEN, ignore_errors=True)
        for name in tables(merged):
            (GOLDEN / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(merged / name, GOLDEN / name)
    p = provenance()
    meta = dict(results_version=RESULTS_VERSION, study=GOLDEN_SETTINGS, made=time.strftime('%Y-%m-%d %H:%M:%S'),
                cpu=p['cpu'], versions={k: p['versions'].get(k) for k in ('torch', 'numpy', 'pandas')},
                tolerance=TOLERANCE)
    (GOLDEN / 'golden.json').write_text(json.dumps(meta, indent=2, default=str) + '\n')
    print(f"wrote {GOLDEN} ({len(list(GOLDEN.rglob('*.csv')))} tables, results version {RESULTS_VERSION})")


def measure():
    "The golden study on the default kernels and on AVX2 kernels: the largest difference per table."
    with tempfile.TemporaryDirectory(prefix='pe_anchor-isa-') as d:
        a = tables(compute(Path(d) / 'default'))
        b = tables(compute(Path(d) / 'avx2', AVX2))
    diff = differences(a, b)
    out = ROOT / 'benchmarks' / 'golden_tolerance.csv'
    diff.to_csv(out, index=False)
    per = diff.groupby('table').agg(max_abs=('max_abs', 'max'), mismatches=('mismatches', 'sum'))
    print(per.to_string()); print(f"largest: {diff.max_abs.max():.3g}; cells that differ in identities/verdicts: "
                                  f"{int(diff.mismatches.sum())}; written {out}")


def here(out:Path):
    "The golden study computed on this machine's default device (runs, analyses) and compared; the differences in `out`."
    sys.path.insert(0, str(ROOT))
    from pe_anchor.machine import default_device
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix='pe_anchor-here-') as d:
        merged = compute(Path(d))
        trained = sorted({json.loads(f.read_text())['provenance'].get('gpu') or 'cpu'
                          for f in Path(d).glob('cache/*/done.json')})
        diff, bad = differences(tables(GOLDEN), tables(merged)), problems(merged)
    diff.to_csv(out, index=False)
    print(f"default device {default_device()}; runs trained on {', '.join(trained)}; {time.time() - t0:.0f} s; "
          f"largest difference {diff.max_abs.max():.3g}, cells that must be equal and differ {int(diff.mismatches.sum())}")
    print('\n'.join(bad) or f"matches {GOLDEN} within {TOLERANCE}; differences written {out}")
    return bad


if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument('--write', action='store_true'); g.add_argument('--measure', action='store_true')
    g.add_argument('--compare', metavar='DIR'); g.add_argument('--here', metavar='OUT_CSV')
    a = p.parse_args()
    if a.write: write()
    elif a.measure: measure()
    elif a.here: sys.exit(1 if here(Path(a.here)) else 0)
    else:
        bad = problems(Path(a.compare))
        print('\n'.join(bad) or f"matches {GOLDEN} within {TOLERANCE}")
        sys.exit(1 if bad else 0)
