"""Recompute the claims of a committed reproduction from its own tables with the current claims code, and compare.

    python scripts/check_claims.py [reports/cpu]

Reads the analysis tables the reproduction's `manifest.json` lists (`pe_anchor.paper.committed_tables`: each file
checked against its recorded SHA-256) and runs `pe_anchor.claims.claims_table` on them. Every part of the committed `claims.csv` must come out with the same
numbers (ours, interval, permutation SD, the paper's value) and the same verdicts; parts the current code adds are
listed, not counted as differences. Exit 1 on any difference. Reads only.

This is how the committed numbers are known to regenerate unchanged when the code changes but the analyses do not;
`pe-anchor-paper --redo-report` does the same and rewrites the claims, but only while the analyses' fingerprints
(package version, study settings) still match the current code.
"""
import sys
from pathlib import Path
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
KEY = ['claim', 'estimator', 'part']
NUMBERS = ['ours', 'ci_low', 'ci_high', 'perm_sd', 'paper']
VERDICTS = ['part_verdict', 'verdict_batch', 'verdict_image']

def compare(out:Path) -> tuple:
    "(differences, added parts) between the committed claims and those the current code computes."
    sys.path.insert(0, str(ROOT))
    from pe_anchor.claims import claims_table
    from pe_anchor.measure import paper_reference
    from pe_anchor.paper import committed_tables
    tables = {k: v for k, v in committed_tables(out).items() if k != 'claims'}  # every file checked by its SHA-256
    old, new = pd.read_csv(out / 'claims.csv'), claims_table(tables, paper_reference())
    m = old.merge(new, on=KEY, how='outer', suffixes=('_old', '_new'), indicator=True)
    both, diffs = m[m._merge == 'both'], []
    diffs += [f"missing now: {tuple(r)}" for r in m[m._merge == 'left_only'][KEY].itertuples(index=False)]
    for col in NUMBERS:
        a, b = both[col + '_old'].astype(float).to_numpy(), both[col + '_new'].astype(float).to_numpy()
        bad = ~((a == b) | (np.isnan(a) & np.isnan(b)))
        diffs += [f"{col} of {tuple(r)}" for r in both[bad][KEY].itertuples(index=False)]
    for col in VERDICTS:
        bad = both[col + '_old'] != both[col + '_new']
        diffs += [f"{col} of {tuple(r)}" for r in both[bad][KEY].itertuples(index=False)]
    return diffs, [tuple(r) for r in m[m._merge == 'right_only'][KEY].itertuples(index=False)], len(both)

if __name__ == '__main__':
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / 'reports' / 'cpu'
    diffs, added, same = compare(out)
    shown = out.resolve().relative_to(ROOT) if out.resolve().is_relative_to(ROOT) else out
    print(f"{shown}: {same} committed parts recomputed, {len(diffs)} differ; the current code adds {len(added)} part(s)")
    for a in added: print(f"  added: {a}")
    for d in diffs: print(f"  DIFFERS: {d}")
    sys.exit(1 if diffs else 0)
