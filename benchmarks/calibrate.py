"""Calibrate the `cpu` preset on the paper's recipe (PE lr x1): train candidate configurations one after another and
record per-epoch emergence curves (SSDC per layer, unpermuted and under both RPI estimators) in a tidy table.

    python benchmarks/calibrate.py ape:crop3 ape:rrc3 rope:crop3 ...    # condition:candidate pairs, run in order
    python benchmarks/calibrate.py ape:rrc10:1 ape:rrc10:2              # condition:candidate:seed (default seed 0)
    python benchmarks/calibrate.py --list                                # the candidates

Runs are cached under $PE_ANCHOR_CACHE (default data/calib); the table is benchmarks/calibration.csv (one row per
candidate x condition x seed x epoch x layer x estimator), the per-epoch accuracy/time in calibration_metrics.csv.
"""
import os, sys, time
from pathlib import Path
import pandas as pd

HERE = Path(__file__).resolve().parent
CANDIDATES = {  # name -> overrides of the `cpu` preset (which itself is on the paper's recipe: PE lr x1)
    'base3':  dict(pe_lr_mult=1.0, train_aug='none', epochs=3),
    'crop3':  dict(pe_lr_mult=1.0, train_aug='crop_flip', epochs=3),
    'rrc3':   dict(pe_lr_mult=1.0, train_aug='rrc_flip', epochs=3),
    'rrc10':  dict(pe_lr_mult=1.0, train_aug='rrc_flip', epochs=10),  # the cpu preset, 10 epochs: what more steps buy
    'crop6':  dict(pe_lr_mult=1.0, train_aug='crop_flip', epochs=6),
    'crop10': dict(pe_lr_mult=1.0, train_aug='crop_flip', epochs=10),
    'p2crop': dict(pe_lr_mult=1.0, train_aug='crop_flip', epochs=3, patch_size=2, subset=20000),
    'x30':    dict(pe_lr_mult=30.0, train_aug='none', epochs=3),  # the old preset, for reference
}

def run_one(condition, name, seed=0):
    from pe_anchor.runs.training import get_trained
    root = os.environ.get('PE_ANCHOR_CACHE', str(HERE.parent / 'data' / 'calib'))
    t0 = time.time()
    run = get_trained(condition, 'cpu', seed=seed, cache_root=root, progress=False, **CANDIDATES[name])
    wall = time.time() - t0
    tag = dict(candidate=name, overrides=str(CANDIDATES[name]))
    ssdc = run.ssdc.assign(**tag)
    metrics = run.metrics.assign(condition=condition, seed=seed, wall_s=round(wall, 1), **tag)
    return ssdc, metrics

def append(df, path):
    old = pd.read_csv(path) if path.exists() else pd.DataFrame()
    keys = ['candidate', 'condition', 'seed']  # a rerun of one (candidate, condition, seed) replaces its rows
    if len(old):
        new_keys = set(map(tuple, df[keys].astype(str).values))
        old = old[[tuple(r) not in new_keys for r in old[keys].astype(str).values]]
    pd.concat([old, df]).to_csv(path, index=False)

if __name__ == '__main__':
    args = sys.argv[1:]
    if not args or args == ['--list']:
        for k, v in CANDIDATES.items(): print(f"{k:8s} {v}")
        sys.exit(0)
    jobs = [(a.split(':') + ['0'])[:3] for a in args]
    for cond, name, seed in jobs:
        if name not in CANDIDATES: sys.exit(f"unknown candidate {name!r}; valid: {', '.join(CANDIDATES)}")
        if not seed.isdigit(): sys.exit(f"seed must be an integer >= 0; got {seed!r} in {cond}:{name}:{seed}")
    for cond, name, seed in jobs:
        ssdc, metrics = run_one(cond, name, int(seed))
        append(ssdc, HERE / 'calibration.csv'); append(metrics, HERE / 'calibration_metrics.csv')
        s = ssdc[ssdc.epoch == ssdc.epoch.max()]
        piv = s.pivot_table(index='permuted', columns='layer', values='ssdc').round(3)
        print(f"== {cond}:{name}:{seed} acc {metrics.test_acc.iloc[-1]:.3f} wall {metrics.wall_s.iloc[0]} s\n{piv}", flush=True)
