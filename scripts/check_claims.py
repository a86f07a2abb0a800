"""Check a committed study: its claims re-derived from the parts' per-run results, its tables' claims recomputed with
the current code, and the rules the code uses against the pre-registration's machine-readable block.

    python scripts/check_claims.py [OUT ...] [--prereg FILE]   # default: reports/cpu, cpu-exploratory, cpu-families

1. **Re-derived from the parts** (a merged study, its manifest naming the parts: their paths from the study, or for
   an older manifest their folders in `reports/cpu-parts/`): the parts' per-run results are combined again by the
   merge code (`pe_anchor.merge.merge_parts`, no report, no training) into a temporary folder; its `claims.csv` and
   every table (the hypotheses' too) must equal the committed ones byte for byte. A coordinated edit of a merged
   table, its SHA-256 in the manifest and `claims.csv` fails here.
2. **The rules** (`--prereg`, default `data/preregistration-cpu.md`): epsilon, the confidence and one-sided level, the
   75 % accuracy share, C7's θ, the deciding parts of every claim as the code builds them, the Holm family, the
   premises, the floor guard's multiple and the preset's seeds, estimators, permutations and SSDC images must be what
   the block says. A changed threshold in the block fails here.
3. **Recomputed from the committed tables**:
Reads the analysis tables the reproduction's `manifest.json` lists (`pe_anchor.plan.committed_tables`: each file
checked against its recorded SHA-256) and runs the claims code on them: `pe_anchor.confirm.study_claims` (the
pre-registered primary verdicts too) when the committed `claims.csv` has primary rows, else
`pe_anchor.claims_table.claims_table`. Every part of the committed `claims.csv` must come out with every column the same
(numbers exactly, NaN equal to NaN; text, roles, thresholds, seed counts, interval methods, notes and verdicts). A
part the committed file has and the code no longer makes fails; so does an added part of a role the committed file
already has. Parts of a role the committed file does not have at all (a kind of part added to the code later, e.g.
the severity parts of an older reproduction) are listed, not counted. The same for every pre-registered table the
study has beside its claims (`pe_anchor.hypotheses.study_records`: the families study's `tables/claims/hypotheses.csv`,
recomputed by `study_hypotheses` and compared part by part, keyed by hypothesis, part and role). A study holding the
families' conditions is read with their module imported (the families' block names it). Exit 1 on any difference.
Reads only.

This is how the committed numbers are known to regenerate unchanged when the code changes but the analyses do not;
`pe-anchor-paper --redo-report` does the same and rewrites the claims, but only while the analyses' fingerprints
(package version, study settings) still match the current code.
"""
import importlib, json, sys
from pathlib import Path
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
PREREG = ROOT / 'data' / 'preregistration-cpu.md'
KEY = ['claim', 'estimator', 'part', 'role']
RECORD_KEY = ['hypothesis', 'part', 'role']  # a row of a pre-registered table beside the claims (`study_records`)

def load_plugins(out:Path):
    "Import the families' module (their block's `import`) if the study in `out` holds one of their conditions."
    sys.path.insert(0, str(ROOT))
    from pe_anchor.hypotheses import families_preregistration
    pr = families_preregistration()
    plan = json.loads((out / 'manifest.json').read_text(encoding='utf-8')).get('plan', {})
    if set(pr['conditions']) & set(plan.get('study', {}).get('conditions', [])): importlib.import_module(pr['import'])

def analysis_tables(out:Path) -> dict:
    "The committed analysis tables of `out`, each checked against its SHA-256 (no claims, no table beside them)."
    from pe_anchor.plan import committed_tables
    from pe_anchor.hypotheses import STUDY_RECORDS
    return {k: v for k, v in committed_tables(out).items() if k != 'claims' and k not in STUDY_RECORDS}

def recompute(out:Path) -> pd.DataFrame:
    "The claims the current code computes from the reproduction's committed tables."
    sys.path.insert(0, str(ROOT))
    from pe_anchor.claims_table import claims_table
    from pe_anchor.confirm import study_claims
    from pe_anchor.measure import paper_reference
    from pe_anchor.plan import read_plan
    tables = analysis_tables(out)  # every file checked by its SHA-256
    old = pd.read_csv(out / 'claims.csv')
    if 'role' in old and (old.role == 'primary').any(): return study_claims(tables, read_plan(out), paper_reference())
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
    return differences(old, new, KEY)

def records(out:Path) -> dict:
    "{name: (committed, recomputed)} of every pre-registered table the study in `out` has beside its claims."
    from pe_anchor.hypotheses import study_records
    from pe_anchor.plan import read_plan
    got = study_records(read_plan(out))
    tables = analysis_tables(out) if got else {}
    return {n: (pd.read_csv(out / 'tables' / 'claims' / f'{n}.csv'), r.compute(tables, read_plan(out)))
            for n, r in got.items()}

def differences(old:pd.DataFrame, new:pd.DataFrame, key:list) -> tuple:
    "(differences, parts of new roles, parts compared) between a committed table and the current code's, by `key`."
    m = old.merge(new, on=key, how='outer', suffixes=('_old', '_new'), indicator=True)
    both, diffs = m[m._merge == 'both'], []
    extended.clear()
    diffs += [f"missing now: {tuple(r)}" for r in m[m._merge == 'left_only'][key].itertuples(index=False)]
    added = m[m._merge == 'right_only']
    known = added.role.isin(set(old.role))
    diffs += [f"added part of a role the committed file has: {tuple(r)}"
              for r in added[known][key].itertuples(index=False)]
    for col in [c for c in old.columns if c not in key and c in new.columns]:
        bad = ~_same(both[col + '_old'], both[col + '_new'])
        if col == 'note':  # a note the current code extends (the committed words intact, detail added) is listed
            o, n = both.note_old.fillna('').astype(str), both.note_new.fillna('').astype(str)
            longer = np.array([b.startswith(a) and len(b) > len(a) for a, b in zip(o, n)])
            extended.extend(tuple(r) for r in both[bad & longer][key].itertuples(index=False))
            bad &= ~longer
        diffs += [f"{col} of {tuple(r)}" for r in both[bad][key].itertuples(index=False)]
    return diffs, [tuple(r) for r in added[~known][key].itertuples(index=False)], len(both)

DEFAULT = ('reports/cpu', 'reports/cpu-exploratory', 'reports/cpu-families')  # the committed studies (those present)

def report(shown:str, what:str, result:tuple) -> bool:
    "Print one comparison (`differences`); True if nothing differs."
    diffs, added, same = result
    print(f"{shown}: {same} committed parts of {what} recomputed (every column), {len(diffs)} differ; the current "
          f"code adds {len(added)} part(s) of roles the committed file does not have")
    for a in added[:20]: print(f"  added: {a}")
    for e in extended: print(f"  note extended (the committed words intact, detail added): {e}")
    for d in diffs: print(f"  DIFFERS: {d}")
    return not diffs

def check(out:Path) -> bool:
    "Compare one reproduction's claims and every table beside them; print what differs; True if nothing does."
    shown = out.resolve().relative_to(ROOT) if out.resolve().is_relative_to(ROOT) else out
    ok = [report(shown, 'claims.csv', compare(out))]
    for name, (old, new) in records(out).items():
        ok.append(report(shown, f'tables/claims/{name}.csv', differences(old, new, RECORD_KEY)))
    return all(ok)

def remerge(out:Path) -> list|None:
    "Files that differ between the committed study and a merge of its parts into a temporary folder (None: no parts)."
    import tempfile
    sys.path.insert(0, str(ROOT))
    from pe_anchor.merge import merge_parts
    merged = json.loads((out / 'manifest.json').read_text()).get('part', {}).get('merged', [])
    if not merged: return None
    parts = [(out / p['path']).resolve() if p.get('path') else ROOT / 'reports' / 'cpu-parts' / p['folder']
             for p in merged]  # the path from the study; an older manifest names a folder of reports/cpu-parts
    missing = [str(p) for p in parts if not (p / 'manifest.json').is_file()]
    if missing: sys.exit(f"{out}: the manifest names parts that are not there: {', '.join(missing)} "
                         "(a merged study is checked beside its parts, at the paths its manifest records)")
    parts = [str(p) for p in parts]
    with tempfile.TemporaryDirectory(prefix='pe_anchor-check-') as d:
        new = Path(d) / 'study'
        merge_parts(parts, new, report=False, progress=False)
        files = ['claims.csv', *sorted(p.relative_to(new).as_posix() for p in (new / 'tables').rglob('*') if p.is_file())]
        return [f for f in files if not (out / f).is_file() or (out / f).read_bytes() != (new / f).read_bytes()]

def rules(prereg:Path=PREREG) -> list:
    "Where the rules the code uses differ from the pre-registration's block ([] if nowhere)."
    import inspect
    sys.path.insert(0, str(ROOT))
    from pe_anchor import claims, confirm
    from pe_anchor.claims_table import fake_tables
    from pe_anchor.core import PRESETS
    pr, cpu = confirm.preregistration(prereg), PRESETS['cpu'].study
    default = lambda f, k: inspect.signature(f).parameters[k].default
    parts, _ = confirm.deciding_parts(fake_tables(curves=True), pr, 0.1)
    built = {c: [p['part'] for p in parts if p['claim'] == c] for c in claims.CLAIMS}
    premises = {c: sorted({p['premise'][0].split(' = ')[0] for p in parts if p['claim'] == c and p.get('premise')})
                for c in ('C6', 'C7')}
    want = dict(epsilon=claims.APPROX_ZERO, confidence=default(confirm.part_test, 'confidence'),
                one_sided_level=default(confirm.claim_decision, 'level'), acc_kept=claims.ACC_KEPT,
                correction='holm-within-claim' if confirm.READINGS['holm'][0] == 'deciding' else 'holm-testable',
                comparisons='paired', seeds=list(cpu['seeds']), n_perms=cpu['n_perms'], ssdc_images=cpu['n_images'],
                primary_estimator='batch', secondary_estimators=['image'])
    bad = [f"{k}: the block says {pr.get(k)!r}, the code uses {v!r}" for k, v in want.items() if pr.get(k) != v]
    bad += [f"{c} deciding parts: the block says {v['deciding']}, the code builds {built[c]}"
            for c, v in pr['claims'].items() if v['deciding'] != built[c]]
    theta = dict(ape=claims.EARLY_SHARE, sincos=claims.EARLY_SHARE, rope=claims.GRADUAL_SHARE)
    if pr['claims']['C7']['theta'] != theta: bad.append(f"C7 theta: the block says {pr['claims']['C7']['theta']}, "
                                                        f"the code's shares are {theta}")
    for c, got in premises.items():
        if [pr['claims'][c]['premise'].split(' > ')[0]] != [g.split(' > ')[0] for g in got]:
            bad.append(f"{c} premise: the block says {pr['claims'][c]['premise']!r}, the code tests {got}")
    if pr['floor_guard']['chance_multiple'] != 2: bad.append("floor guard: the code uses 2 x chance")
    if pr['claims']['C6']['alpha_low'] != 0.1 or pr['damage_matched']['reads'] != 'none only':
        bad.append("C6 alpha_low or the damage-matched rule differ from the code's (0.1; `none` only)")
    return bad

if __name__ == '__main__':
    args = sys.argv[1:]
    prereg = Path(args.pop(args.index('--prereg') + 1)) if '--prereg' in args else PREREG
    args = [a for a in args if a != '--prereg']
    outs = [Path(a) for a in args] or [ROOT / d for d in DEFAULT if (ROOT / d / 'claims.csv').exists()]
    if not outs: sys.exit(f"no committed reproduction found ({', '.join(DEFAULT)})")
    bad = rules(prereg)
    print(f"rules: the code and the pre-registration block ({prereg.name}) agree" if not bad else
          f"rules: {len(bad)} difference(s) between the code and {prereg}")
    for b in bad: print(f"  DIFFERS: {b}")
    ok = [not bad]
    for o in outs:
        load_plugins(o)
        differ = remerge(o)
        print(f"{o.name}: " + ('not a merge of parts: nothing to re-derive' if differ is None else
              're-derived from its parts: every file the same' if not differ else
              f"re-derived from its parts: {len(differ)} file(s) differ: {', '.join(differ[:10])}"))
        ok += [not differ, check(o)]
    sys.exit(0 if all(ok) else 1)
