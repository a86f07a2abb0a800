"""Recompute the claims of a committed reproduction from its own tables with the current claims code, and compare.

    python scripts/check_claims.py [OUT ...]    # default: reports/cpu and reports/cpu-exploratory

Reads the analysis tables the reproduction's `manifest.json` lists (`pe_anchor.paper.committed_tables`: each file
checked against its recorded SHA-256) and runs the claims code on them: `pe_anchor.confirm.study_claims` (the
pre-registered primary verdicts too) when the committed `claims.csv` has primary rows, else
`pe_anchor.claims_table.claims_table`. Every part of the committed `claims.csv` must come out with every column the same
(numbers exactly, NaN equal to NaN; text, roles, thresholds, seed counts, interval methods, notes and verdicts). A
part the committed file has and the code no longer makes fails; so does an added part of a role the committed file
already has. Parts of a role the committed file does not have at all (a kind of part added to the code later, e.g.
the severity parts of an older reproduction) are listed, not counted. Exit 1 on any difference. Reads only.

This is how the committed numbers are known to regenerate unchanged when the code changes but the analyses do not;
`pe-anchor-paper --redo-report` does the same and rewrites the claims, but only while the analyses' fingerprints
(package version, study settings) still match the current code.
"""
import sys
from pathlib import Path
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
KEY = ['claim', 'estimator', 'part', 'role']

def recompute(out:Path) -> pd.DataFrame:
    "The claims the current code computes from the reproduction's committed tables."
    sys.path.insert(0, str(ROOT))
    from pe_anchor.claims_table import claims_table
    from pe_anchor.confirm import study_claims
    from pe_anchor.measure import paper_reference
    from pe_anchor.paper import committed_tables
    from pe_anchor.plan import read_plan
    tables = {k: v for k, v in committed_tables(out).items() if k != 'claims'}  # every file checked by its SHA-256
    old = pd.read_csv(out / 'claims.csv')
    if 'role' in old and (old.role == 'primary').any(): return study_claims(tables, read_plan(out)[0], paper_reference())
    return claims_table(tables, paper_reference())

def _same(a:pd.Series, b:pd.Series) -> np.ndarray:
    "Elementwise equality of two columns: numbers exactly (NaN equals NaN), anything else as text."
    try: x, y = a.astype(float).to_numpy(), b.astype(float).to_numpy(); return (x == y) | (np.isnan(x) & np.isnan(y))
    except (TypeError, ValueError):
        return a.fillna('').astype(str).to_numpy() == b.fillna('').astype(str).to_numpy()  # CSV: '' reads as NaN

extended = []  # parts whose note the current code extends (filled by `compare`)

def compare(out:Path) -> tuple:
    "(differences, parts of new roles, parts compared) between the committed claims and the current code's."
    old, new = pd.read_csv(out / 'claims.csv'), recompute(out)
    if 'role' not in old: old = old.assign(role='test')
    m = old.merge(new, on=KEY, how='outer', suffixes=('_old', '_new'), indicator=True)
    both, diffs = m[m._merge == 'both'], []
    extended.clear()
    diffs += [f"missing now: {tuple(r)}" for r in m[m._merge == 'left_only'][KEY].itertuples(index=False)]
    added = m[m._merge == 'right_only']
    known = added.role.isin(set(old.role))
    diffs += [f"added part of a role the committed file has: {tuple(r)}" for r in added[known][KEY].itertuples(index=False)]
    for col in [c for c in old.columns if c not in KEY and c in new.columns]:
        bad = ~_same(both[col + '_old'], both[col + '_new'])
        if col == 'note':  # a note the current code extends (the committed words intact, detail added) is listed
            o, n = both.note_old.fillna('').astype(str), both.note_new.fillna('').astype(str)
            longer = np.array([b.startswith(a) and len(b) > len(a) for a, b in zip(o, n)])
            extended.extend(tuple(r) for r in both[bad & longer][KEY].itertuples(index=False))
            bad &= ~longer
        diffs += [f"{col} of {tuple(r)}" for r in both[bad][KEY].itertuples(index=False)]
    return diffs, [tuple(r) for r in added[~known][KEY].itertuples(index=False)], len(both)

DEFAULT = ('reports/cpu', 'reports/cpu-exploratory')  # the committed studies: confirmatory, and the exploratory one

def check(out:Path) -> bool:
    "Compare one reproduction; print what differs; True if nothing does."
    diffs, added, same = compare(out)
    shown = out.resolve().relative_to(ROOT) if out.resolve().is_relative_to(ROOT) else out
    print(f"{shown}: {same} committed parts recomputed (every column), {len(diffs)} differ; the current code adds "
          f"{len(added)} part(s) of roles the committed file does not have")
    for a in added[:20]: print(f"  added: {a}")
    for e in extended: print(f"  note extended (the committed words intact, detail added): {e}")
    for d in diffs: print(f"  DIFFERS: {d}")
    return not diffs

if __name__ == '__main__':
    outs = [Path(a) for a in sys.argv[1:]] or [ROOT / d for d in DEFAULT if (ROOT / d / 'claims.csv').exists()]
    if not outs: sys.exit(f"no committed reproduction found ({', '.join(DEFAULT)})")
    ok = [check(o) for o in outs]
    sys.exit(0 if all(ok) else 1)
