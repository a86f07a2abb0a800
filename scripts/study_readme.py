"""Write `reports/cpu/README.md`, the page of the committed confirmatory study, from its own files.

    python scripts/study_readme.py           # regenerate reports/cpu/README.md
    python scripts/study_readme.py --check   # exit 1 if it is out of step with the files it is made from

Made from: the merged study's `manifest.json` and `claims.csv` (`reports/cpu`), each part's manifest
(`reports/cpu-parts/*/manifest.json`: what each part cost, where and when it ran), the pre-registration
(`data/preregistration-cpu.md`: its predictions, SHA-256, first commit and departures) and the exploratory study's
`claims.csv` (`reports/cpu-exploratory`). Every number on the page is read from those files; nothing is typed.
"""
import csv, datetime as dt, json, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / 'reports' / 'cpu'
EXPLORATORY = ROOT / 'reports' / 'cpu-exploratory'
sys.path.insert(0, str(ROOT / 'scripts'))
import parts_status  # noqa: E402  (each part's cost, from its manifest)
import make_readme  # noqa: E402  (seed ranges)

FIGURES = [  # figure -> what it shows, the paper's figure or table it redraws
    ('glance', 'every claim at a glance: its primary verdict, the deciding part nearest the decision, severity counts',
     'none: our summary'),
    ('fig1b', 'SSDC per layer, unpermuted: untrained and trained ablated, trained APE', 'Fig. 1a, 1b'),
    ('fig4', 'SSDC per layer, unpermuted, every condition', 'Fig. 4 (App. C.1)'),
    ('fig2a', 'SSDC per layer under RPI, the PE models', 'Fig. 2a'),
    ('fig2b', 'SSDC per layer under RPI, ablated and RPT', 'Fig. 2b'),
    ('fig5', "RPT's SSDC per layer, unpermuted and under RPI", 'Fig. 5 (App. C.2)'),
    ('fig3', 'Fragility Scores under JPEG and blur at the paper\'s settings', 'Fig. 3 (Table 5)'),
    ('severity', 'Fragility Score at every setting of the JPEG and blur ladders', 'none: our extension'),
    ('alpha_sweep', 'ΔSSDC and JPEG FS as the PE is scaled by α', 'Tables 1, 3, 4 (no figure in the paper)'),
    ('emergence', 'SSDC per layer after every training epoch', 'none: our extension'),
    ('matched', "FS of every PE model at the epoch matching the ablated model's accuracy", 'none: our extension'),
    ('rpi_accuracy', 'clean accuracy under RPI', 'none: not reported by the paper'),
]


def rows(path:Path) -> list:
    return list(csv.DictReader(path.open(encoding='utf-8'))) if path.exists() else []


def predictions(text:str) -> dict:
    "The pre-registration's prediction table: {claim: (exploratory verdict as written there, prediction)}."
    section = text.split('## Predictions', 1)[1].split('\n## ', 1)[0]
    out = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) == 3 and re.fullmatch(r'C\d', cells[0]): out[cells[0]] = (cells[1], cells[2])
    return out


def minutes(seconds:float) -> str:
    return f"{seconds / 60:.0f}"


def study_start(parts:list) -> str:
    "When the first run of the study started training (its record's finish time less its training time)."
    starts = []
    for p in parts:
        for r in json.loads((ROOT / 'reports' / 'cpu-parts' / p['folder'] / 'manifest.json').read_text())['part']['runs']:
            end = dt.datetime.fromisoformat(r['finished'])
            starts.append(end - dt.timedelta(seconds=r.get('train_seconds') or 0))
    return min(starts).strftime('%Y-%m-%d %H:%M:%S') if starts else 'unknown'


def page() -> str:
    sys.path.insert(0, str(ROOT))
    from pe_anchor.confirm import preregistration, preregistration_record
    from pe_anchor.results import nonzero_counts
    m = json.loads((OUT / 'manifest.json').read_text(encoding='utf-8'))
    study, merged = m['plan']['study'], m.get('part', {})
    claims, old = rows(OUT / 'claims.csv'), {r['claim']: r['verdict_batch'] for r in rows(EXPLORATORY / 'claims.csv')}
    prim = {r['claim']: r for r in claims if r['role'] == 'primary'}
    counts = {}
    for r in claims:
        if r['role'] == 'severity counts':
            counts.setdefault(r['claim'], []).append(f"{r['corruption']}: {nonzero_counts(r['note'])}")
    deciding = {}
    for r in claims:
        if r['role'] == 'deciding': deciding.setdefault(r['claim'], []).append(r['part_verdict'])
    rec, block = preregistration_record(), preregistration()
    text = (ROOT / rec['file']).read_text(encoding='utf-8')
    pred = predictions(text)
    commit_time = ''
    if rec['commit']:
        import subprocess
        commit_time = subprocess.run(['git', 'show', '-s', '--format=%ci', rec['commit']], cwd=ROOT,
                                     capture_output=True, text=True).stdout.strip()
    merged_folders = [p['folder'] for p in merged.get('merged', [])]
    parts = [p for p in parts_status.parts() if not merged_folders or p['folder'] in merged_folders]
    seeds = study['seeds']
    dates = [u['finished'][:10] for u in m.get('units', {}).values() if u.get('finished')]
    L = [f"# The confirmatory `cpu` study (Fashion-MNIST, {len(study['conditions'])} conditions x {len(seeds)} seeds)",
         '', '<!-- generated by scripts/study_readme.py from this folder, the parts, the pre-registration and the '
             'exploratory study: do not edit -->', '',
         f"**Confirmatory.** Seeds {make_readme.seed_range(seeds)}, which this project had never trained before, decided "
         f"by the rules of the pre-registration [`{rec['file']}`](../../{rec['file']}) (SHA-256 `{rec['sha256'][:16]}…`), "
         f"first committed in `{rec['commit'][:10]}` at {commit_time or 'an unknown time'}; the first run of the study "
         f"started training at {study_start(parts)} (from its record). Merged on {max(dates) if dates else 'an unknown date'} "
         f"from the {len(parts)} parts in [`reports/cpu-parts/`](../cpu-parts/README.md) by "
         "`pe-anchor-paper --merge reports/cpu-parts/seed-* --out-dir reports/cpu` (no training, no run cache; "
         f"results version {merged.get('results_version', '?')}). A re-merge of the committed parts gives this "
         "folder's tables and `claims.csv` byte for byte; `python scripts/check_claims.py` recomputes every claim from "
         "the tables with the current code. The exploratory study (seeds "
         f"{make_readme.seed_range(block['exploratory']['seeds'])}, which chose the preset) is in "
         "[`reports/cpu-exploratory/`](../cpu-exploratory/README.md).", '',
         '| file | what |', '|---|---|',
         '| `report.html` | the standalone report: the primary verdicts and every part, every figure (interactive), '
         'tables beside the paper\'s, deviations, the pre-registration and its departures, provenance. Download and '
         'open in a browser |',
         '| `claims.csv` | one primary row per claim (its Holm-corrected decision), the deciding parts, every secondary '
         'part, the severity verdicts and their counts |',
         '| `figures/` | every figure of the report as PNG and SVG |',
         '| `tables/` | the tidy tables behind every figure and table, one folder per analysis and the claims |',
         '| `results/` | every per-run result of every analysis, as the parts computed them (with records and SHA-256) |',
         '| `notebooks/` | the executed report notebook (`08_claims`) and the section notebooks 01-07 with their '
         '"committed result" section executed on this folder (`scripts/committed_notebooks.py`) |',
         '| `manifest.json` | the study, each analysis\'s fingerprint, time and SHA-256 of its files, the merged parts '
         'with their runs and costs, every per-run result\'s record |', '',
         '## The verdicts: predicted, exploratory, confirmatory', '',
         'The prediction is the pre-registration\'s, written before any run of this study was trained. The primary '
         'verdict uses the pre-registered deciding parts: paired by seed, Holm within the claim, every choice on the '
         'selection half, every reported number on the report half.', '',
         '| claim | exploratory verdict (batch RPI) | predicted | **confirmatory primary verdict** | deciding parts holding '
         '| as predicted? | severity counts (C4, C5) |', '|---|---|---|---|---|---|---|']
    for c, p in sorted(prim.items()):
        d = deciding.get(c, [])
        guess = pred.get(c, ('', ''))[1]
        same = 'yes' if any(g.strip().startswith(p['part_verdict']) for g in re.split(r' or |:', guess)) else 'no'
        L.append(f"| {c} | {old.get(c, 'n/a')} | {guess} | **{p['part_verdict']}** | "
                 f"{sum(v == 'holds' for v in d)} of {len(d)} | {same} | {'<br>'.join(counts.get(c, []))} |")
    changed = [c for c, p in sorted(prim.items()) if old.get(c) and old[c] != p['part_verdict']]
    L += ['', f"Verdicts that differ from the exploratory study's: {', '.join(changed) or 'none'}. Each claim's "
              "parts, numbers and intervals are in `claims.csv` and the report.", '',
          '## What changed from the exploratory study', '',
          f"- **Runs**: seeds {make_readme.seed_range(seeds)} ({len(seeds)} per condition) instead of "
          f"{make_readme.seed_range(block['exploratory']['seeds'])}; the training recipe is the same (the preset the "
          'exploratory study chose).',
          '- **Images**: the test split is halved once by a fixed rule (within each class, even ranks select, odd '
          'ranks report). The exploratory study chose and reported on the same images.',
          '- **Decision**: one primary verdict per claim from pre-registered deciding parts, paired t intervals over '
          'seeds, Holm within the claim; the exploratory verdicts are per part and unpaired (Welch), uncorrected.',
          '- **Severity**: C4 and C5 are decided at the damage-matched JPEG setting chosen from `none` on the '
          'selection half; the paper\'s nominal settings and every ladder setting are secondary, summarised as counts '
          'of each verdict. The exploratory study decided at the nominal setting only.',
          '- **C6 and C7**: C6 reads the JPEG FS rise at the smallest α keeping 75 % of every seed\'s accuracy; C7 '
          'uses D = R_e − θ·R with every seed (the exploratory statistic kept only seeds with a clear rise).', '',
          '## Departures from the pre-registration', '',
          'As the pre-registration lists them (its `## Departures` section):', '']
    L += [f"- {d}" for d in rec['departures']] or ['- none']
    L += ['', '## What each part cost', '',
          'From each part\'s own manifest: training minutes are each run\'s own wall time on one core; analysis '
          'minutes add up each per-run task; wall minutes are the part command\'s (the machine\'s load during each '
          'part is in `benchmarks/README.md`).', '',
          '| part | runs | per-run results | training, CPU min | analyses, CPU min | wall min | finished | commit | CPU |',
          '|---|---|---|---|---|---|---|---|---|']
    for r in parts:
        L.append(f"| `{r['folder']}` | {r['runs']} | {r['results']} | {r['train_cpu_min']:.0f} | "
                 f"{r['analysis_cpu_min']:.0f} | {r['wall_min']:.0f} | {r['finished']} | `{r['commit']}` | {r['cpu']} |")
    tot = {k: sum(r[k] for r in parts) for k in ('runs', 'results', 'train_cpu_min', 'analysis_cpu_min', 'wall_min')}
    L.append(f"| **all** | {tot['runs']} | {tot['results']} | {tot['train_cpu_min']:.0f} | "
             f"{tot['analysis_cpu_min']:.0f} | {tot['wall_min']:.0f} | | | |")
    units = m.get('units', {})
    merge_s = sum(u.get('seconds') or 0 for k, u in units.items())
    each = ', '.join(f"{k} {u.get('seconds') or 0:.1f} s" for k, u in units.items())
    L += ['', f"The merge itself: {merge_s:.0f} s for the combined tables, the claims and the report ({each}).", '',
          '## Figures', '', '| figure | what it shows | the paper\'s |', '|---|---|---|']
    L += [f"| [`{k}`](figures/{k}.png) | {what} | {paper} |" for k, what, paper in FIGURES
          if (OUT / 'figures' / f'{k}.png').exists()]
    return '\n'.join(L) + '\n'


if __name__ == '__main__':
    text = page()
    path = OUT / 'README.md'
    if '--check' in sys.argv:
        ok = path.exists() and path.read_text(encoding='utf-8') == text
        if not ok: print(f"{path.relative_to(ROOT)} is out of step: run python scripts/study_readme.py")
        sys.exit(0 if ok else 1)
    path.write_text(text, encoding='utf-8')
    print(f"wrote {path.relative_to(ROOT)}")
