"""Write `reports/cpu/README.md`, the page of the committed confirmatory study, from its own files; and
`reports/cpu-families/README.md`, the families study's page, once that study is merged.

    python scripts/study_readme.py                  # regenerate reports/cpu/README.md (and the families' page)
    python scripts/study_readme.py --check          # exit 1 if a page is out of step with the files it is made from
    python scripts/study_readme.py --families OUT   # the families' page of the merged study in OUT (--check too)

Made from: the merged study's `manifest.json` and `claims.csv` (`reports/cpu`), each part's manifest
(`reports/cpu-parts/*/manifest.json`: what each part cost, where and when it ran), the pre-registration
(`data/preregistration-cpu.md`: its predictions, SHA-256, first commit and departures) and the exploratory study's
`claims.csv` (`reports/cpu-exploratory`). Every number on the page is read from those files; nothing is typed.

The families' page (`families_page`) is made from the merged study's `manifest.json` (its parts and their runs),
`tables/claims/hypotheses.csv` (`pe_anchor.verdicts.hypotheses.study_hypotheses`), its figures, the families'
pre-registration (`data/preregistration-families.md`: SHA-256, first commit, departures) and the code's reviewed
departures from its block (`pe_anchor.verdicts.hypotheses.DEPARTURES`). It is labelled as our extension, not the paper's.
"""
import csv, datetime as dt, re, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / 'reports' / 'cpu'
FAMILIES_OUT = ROOT / 'reports' / 'cpu-families'
EXPLORATORY = ROOT / 'reports' / 'cpu-exploratory'
from pe_anchor.report.pages import figure_list, label_notes, other_readings, seed_range, severity_counts
from pe_anchor.engine.plan import read_manifest
from pe_anchor.engine.upkeep import part_manifests, part_row



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


def git_time(commit:str) -> str:
    "The commit's time (git), '' without one."
    if not commit: return ''
    return subprocess.run(['git', 'show', '-s', '--format=%ci', commit], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()


def minutes(seconds:float) -> str:
    return f"{seconds / 60:.0f}"


def study_start(parts:list) -> str:
    "When the first run of the study started training (its record's finish time less its training time)."
    starts, mans = [], part_manifests(ROOT / 'reports' / 'cpu-parts')
    for p in parts:
        for r in mans[ROOT / 'reports' / 'cpu-parts' / p['folder']]['part']['runs']:
            end = dt.datetime.fromisoformat(r['finished'])
            starts.append(end - dt.timedelta(seconds=r.get('train_seconds') or 0))
    return min(starts).strftime('%Y-%m-%d %H:%M:%S') if starts else 'unknown'


def peak_table() -> list:
    "C7's peak layer per condition and seed, as markdown rows (`pe_anchor.verdicts.record.peak_layers`)."
    from pe_anchor.engine.plan import committed_tables
    from pe_anchor.verdicts.record import peak_layers
    pk = peak_layers(committed_tables(OUT)['ssdc_profiles'])
    return (['| condition | ' + ' | '.join(f'seed {s}' for s in pk.columns) + ' |', '|---' * (len(pk.columns) + 1) + '|']
            + [f"| `{c}` | " + ' | '.join(str(int(v)) for v in r) + ' |' for c, r in pk.iterrows()])


def page() -> str:
    from pe_anchor.verdicts.confirm import preregistration, preregistration_record
    m = read_manifest(OUT)
    study, merged = m['plan']['study'], m.get('part', {})
    claims, old = rows(OUT / 'claims.csv'), {r['claim']: r['verdict_batch'] for r in rows(EXPLORATORY / 'claims.csv')}
    prim = {r['claim']: r for r in claims if r['role'] == 'primary'}
    counts = severity_counts(claims)
    deciding = {}
    for r in claims:
        if r['role'] == 'deciding': deciding.setdefault(r['claim'], []).append(r['part_verdict'])
    rec, block = preregistration_record(), preregistration()
    text = (ROOT / rec['file']).read_text(encoding='utf-8')
    pred = predictions(text)
    commit_time = git_time(rec['commit'])
    merged_folders = [p['folder'] for p in merged.get('merged', [])]
    parts = [part_row(f, pm) for f, pm in part_manifests(ROOT / 'reports' / 'cpu-parts').items()
             if not merged_folders or f.name in merged_folders]
    seeds = study['seeds']
    dates = [u['finished'][:10] for u in m.get('units', {}).values() if u.get('finished')]
    L = [f"# The confirmatory `cpu` study (Fashion-MNIST, {len(study['conditions'])} conditions x {len(seeds)} seeds)",
         '', '<!-- generated by scripts/study_readme.py from this folder, the parts, the pre-registration and the '
             'exploratory study: do not edit -->', '',
         f"**Confirmatory.** Seeds {seed_range(seeds)}, which this project had never trained before, decided "
         f"by the rules of the pre-registration [`{rec['file']}`](../../{rec['file']}) (SHA-256 `{rec['sha256'][:16]}…`), "
         f"first committed in `{rec['commit'][:10]}` at {commit_time or 'an unknown time'}; the first run of the study "
         f"started training at {study_start(parts)} (from its record). Merged on {max(dates) if dates else 'an unknown date'} "
         f"from the {len(parts)} parts in [`reports/cpu-parts/`](../cpu-parts/README.md) by "
         "`pe-anchor-paper --merge reports/cpu-parts/seed-* --out-dir reports/cpu` (no training, no run cache; "
         f"results version {merged.get('results_version', '?')}). A re-merge of the committed parts gives this "
         "folder's tables and `claims.csv` byte for byte; `python scripts/check_claims.py` recomputes every claim from "
         "the tables with the current code. The exploratory study (seeds "
         f"{seed_range(block['exploratory']['seeds'])}, which chose the preset) is in "
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
         '| claim | exploratory verdict (batch RPI) | predicted | **confirmatory primary verdict** | where another '
         'reading or estimator gives another verdict | deciding parts holding | as predicted? | severity counts (C4, C5) |',
         '|---|---|---|---|---|---|---|---|']
    other = other_readings(claims)
    for c, p in sorted(prim.items()):
        d = deciding.get(c, [])
        guess = pred.get(c, ('', ''))[1]
        same = 'yes' if any(g.strip().startswith(p['part_verdict']) for g in re.split(r' or |:', guess)) else 'no'
        L.append(f"| {c} | {old.get(c, 'n/a')} | {guess} | **{p['part_verdict']}** | "
                 f"{'<br>'.join(other.get(c, [])) or 'none'} | "
                 f"{sum(v == 'holds' for v in d)} of {len(d)} | {same} | {'<br>'.join(counts.get(c, []))} |")
    changed = [c for c, p in sorted(prim.items()) if old.get(c) and old[c] != p['part_verdict']]
    L += ['', f"Verdicts that differ from the exploratory study's: {', '.join(changed) or 'none'}. Each claim's "
              "parts, numbers and intervals are in `claims.csv` and the report.", '',
          '## What the labels rest on', '',
          'A reading is how the code settles a phrase of the pre-registration that admits two; the primary is the '
          "document's own definition where it gives one (the Departures below say why, for each). Each claim's verdict "
          'under the other reading is in `claims.csv` (role `reading`).', '',
          *[f"- {x}" for x in label_notes(OUT)], '',
          "C7's measured peak layer of SSDC under batch RPI, per condition and seed (layers 0-3):", '',
          *peak_table(), '',
          '## What changed from the exploratory study', '',
          f"- **Runs**: seeds {seed_range(seeds)} ({len(seeds)} per condition) instead of "
          f"{seed_range(block['exploratory']['seeds'])}; the training recipe is the same (the preset the "
          'exploratory study chose).',
          '- **Images**: the test split is halved once by a fixed rule (within each class, even ranks select, odd '
          'ranks report). The exploratory study chose and reported on the same images.',
          '- **Decision**: one primary verdict per claim from pre-registered deciding parts, paired t intervals over '
          'seeds, Holm within the claim; the exploratory verdicts are per part and unpaired (Welch), uncorrected.',
          '- **Severity**: C4 and C5 are decided at the damage-matched JPEG setting chosen from `none` on the '
          'selection half; the paper\'s nominal settings and every ladder setting are secondary, summarised as counts '
          'of each verdict. The exploratory study decided at the nominal setting only. The floor: '
          + label_notes(OUT)[-1].split(': ', 1)[1],
          '- **Intervals**: paired t only; the unpaired (Welch) intervals of the first confirmatory `claims.csv` are '
          'gone (the exploratory study keeps them; the departure gives their effect).',
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
    L += ['', signature_line(m)]
    L += weights_rows(m)
    units = m.get('units', {})
    merge_s = sum(u.get('seconds') or 0 for k, u in units.items())
    each = ', '.join(f"{k} {u.get('seconds') or 0:.1f} s" for k, u in units.items())
    last = max((u.get('finished') or '' for u in units.values()), default='')
    L += ['', f"The combined tables, the claims and the report as last made (finished {last}, by the merge or a "
          f"later `--redo-report`): {merge_s:.0f} s ({each}).", '',
          '## Figures', '', '| figure | what it shows | the paper\'s |', '|---|---|---|']
    L += [f"| [`{k}`](figures/{k}.png) | {what} | {paper} |" for k, (what, paper) in figure_list().items()
          if (OUT / 'figures' / f'{k}.png').exists()]
    return '\n'.join(L) + '\n'


def signature_line(m:dict) -> str:
    "One line: how many merged parts were signed and verified, by whom, and which were merged unsigned."
    parts = m.get('part', {}).get('merged', [])
    if not parts or any('signature' not in p for p in parts):
        return "Signatures: not recorded (the study was merged before the merge recorded them)."
    by = {}
    for p in parts: by.setdefault(p['signature'], []).append(p)
    said = []
    for kind, ps in sorted(by.items()):
        who = sorted({p.get('signer') for p in ps if p.get('signer')})
        said.append(f"{len(ps)} of {len(parts)} {kind}" + (f" (signer {', '.join(who)})" if who else ''))
    return ("Signatures, as the merge recorded them: " + '; '.join(said) + ". An unsigned part is trusted as the "
            "threat model says ([docs/trust.md](../../docs/trust.md)): its digests bind its files to each other, not "
            "to a person.")


def weights_rows(m:dict) -> list:
    "Lines of the section naming both provenances of each part's runs: trained for the study, made for their weights."
    L = ['', '## Where the committed weights come from', '',
         "Each run's record names the training that produced the study's results (the commit the part ran from) and, "
         "under `weights.made` in the part's manifest, the training that produced its committed weights, if another.",
         '', '| part | trained for the study (commit) | weights made by (commit) | check |', '|---|---|---|---|']
    for part in m.get('part', {}).get('merged', []):
        man = read_manifest(OUT.parent / 'cpu-parts' / part['folder'])
        runs = man['part']['runs']
        study = sorted({f"`{r['provenance']['git']['commit'][:7]}`" + (' (dirty)' if r['provenance']['git']['dirty']
                                                                      else '') for r in runs})
        made = [r['weights'].get('made') for r in runs]
        if not all(made):
            L.append(f"| `{part['folder']}` | {', '.join(study)} | the same training | |")
            continue
        by = sorted({f"`{x['git']['commit'][:7]}`" for x in made})
        L.append(f"| `{part['folder']}` | {', '.join(study)} | trained again: {', '.join(by)} | {made[0]['check']} |")
    return L


# ---------------------------------------------------------------- the families' page (our extension)
def family_runs(m:dict, conditions:list) -> list:
    "Each run of the new encodings in the merged parts, once: its name, when it started training, its commit."
    runs = {}
    for part in m.get('part', {}).get('merged', []):
        for r in part.get('runs') or []:
            if r.get('condition') in conditions and r.get('finished'):
                start = dt.datetime.fromisoformat(r['finished']) - dt.timedelta(seconds=r.get('train_seconds') or 0)
                git = (r.get('provenance') or {}).get('git') or {}
                runs[r['run']] = dict(start=start, commit=git.get('commit', ''))
    return sorted(runs.items(), key=lambda x: x[1]['start'])


def descends(commit:str, ancestor:str) -> bool:
    "Is `commit` `ancestor` or a descendant of it (git)?"
    return bool(commit and ancestor) and subprocess.run(['git', 'merge-base', '--is-ancestor', ancestor, commit],
                                                        cwd=ROOT, capture_output=True).returncode == 0


def before_training(rec:dict, runs:list) -> str:
    "The sentence that says the pre-registration's first commit precedes every family run's training."
    when = git_time(rec['commit'])
    if not runs: return 'No run of the new encodings is in the merged parts.'
    t0 = dt.datetime.fromisoformat(when[:19]) if when else None
    after = sum(t0 is not None and r['start'] > t0 for _, r in runs)
    down = sum(descends(r['commit'], rec['commit']) for _, r in runs)
    return (f"The first of the {len(runs)} runs of the new encodings started training at "
            f"{runs[0][1]['start']:%Y-%m-%d %H:%M:%S} (from its record: finished less training time); **{after} of "
            f"{len(runs)}** started after the pre-registration's first commit (`{rec['commit'][:10]}`, "
            f"{when or 'an unknown time'}), and **{down} of {len(runs)}** were trained from that commit or a later "
            "one (`git merge-base --is-ancestor`, on each run's recorded commit).")


def md_table(df, columns:list) -> list:
    "A markdown table of `df`'s `columns` (text as given)."
    return (['| ' + ' | '.join(columns) + ' |', '|' + '---|' * len(columns)]
            + ['| ' + ' | '.join(str(v) for v in row) + ' |' for row in df[columns].itertuples(index=False)])


def verdict_rows(h) -> list:
    "The predictions against the verdicts, with the deciding parts holding, other readings and the severity counts."
    from pe_anchor.verdicts.hypotheses import hypotheses_summary
    from pe_anchor.report.results import nonzero_counts
    sm, prim = hypotheses_summary(h), h[h.role == 'primary'].set_index('hypothesis').part_verdict
    other = h[(h.role == 'reading') & (h.part_verdict != h.hypothesis.map(prim))]
    sm['other readings'] = [', '.join(f"{r.part_verdict} ({r.part.replace('reading: ', '')})"
                                      for r in other[other.hypothesis == k].itertuples()) or 'none' for k in sm.index]
    sc = h[h.role == 'severity counts']
    sm['severity counts'] = ['<br>'.join(f"{r.corruption}: {nonzero_counts(r.note)}"
                                         for r in sc[sc.hypothesis == k].itertuples()) for k in sm.index]
    sm['as predicted'] = sm['as predicted'].map({True: 'yes', False: 'no'})
    sm['verdict'] = '**' + sm['verdict'] + '**'
    return md_table(sm.reset_index(), ['hypothesis', 'question', 'predicted', 'verdict', 'as predicted',
                                       'deciding parts holding', 'verdict under image RPI', 'other readings',
                                       'severity counts'])


def deciding_rows(h) -> list:
    "Every deciding part with its mean, 95 % interval, seeds, Holm-adjusted p_fail and verdict."
    from pe_anchor.verdicts.hypotheses import deciding_table
    d = deciding_table(h)
    f = lambda x: '' if x != x else f"{x:.3f}"
    d = d.assign(mean=d.ours.map(f), interval=[f"[{f(a)}, {f(b)}]" for a, b in zip(d.ci_low, d.ci_high)],
                 seeds=d.n_seeds.map(lambda x: '' if x != x else int(x)), **{'Holm p_fail': d.p_fail_holm.map(f)})
    d = d.assign(verdict=d.part_verdict, **{'95 % interval': d.interval})
    return md_table(d, ['hypothesis', 'part', 'statistic', 'mean', '95 % interval', 'seeds', 'Holm p_fail', 'verdict'])


def cost_rows(m:dict) -> list:
    "Each merged part: its runs, the runs it trained and their training minutes, its wall minutes, when it finished."
    rows = ['| part | runs | trained here | training, CPU min | wall min | finished |', '|---|---|---|---|---|---|']
    for p in m.get('part', {}).get('merged', []):
        trained = [t for t in p.get('trained') or [] if t.get('status') == 'trained']
        rows.append(f"| `{p.get('path') or p['folder']}` | {len(p.get('keys') or [])} | {len(trained)} | "
                    f"{sum(t.get('seconds') or 0 for t in trained) / 60:.0f} | {(p.get('seconds') or 0) / 60:.0f} | "
                    f"{p.get('finished')} |")
    return rows


def figure_rows(out:Path) -> list:
    "The families' figures and the registered ones that show every condition, if drawn, captioned as on the site."
    from pe_anchor.verdicts.hypotheses import FAMILY_FIGURES
    listed = figure_list()
    keys = ('families_glance', *FAMILY_FIGURES, 'fig3', 'severity', 'rpi_accuracy')
    return ['| figure | what it shows |', '|---|---|'] + [f"| [`{k}`](figures/{k}.png) | {listed[k][0]} |" for k in keys
                                                       if (out / 'figures' / f'{k}.png').exists()]


def departure_lines(rec:dict, h) -> list:
    "The document's departures, the code's reviewed candidates (real ones, others with why not), who carries the label."
    from pe_anchor.verdicts.hypotheses import DEPARTURES
    L = ["As the pre-registration lists them (its `## Departures` section):", '']
    L += [f"- {d}" for d in rec['departures']] or ['- none listed yet']
    listed = ' '.join(rec['departures'])
    L += ['', 'Where the code departs from the block (`pe_anchor.verdicts.hypotheses.DEPARTURES`, each checked by a test in '
              '`lib/21c_families`):', '']
    L += [f"- **{k}**: {why}. {'In the document' if k in listed else '**Not yet in the document**'}."
          for k, (real, why) in DEPARTURES.items() if real] or ['- none']
    prim = h[h.role == 'primary']
    carried = prim[prim.part_verdict == 'not interpretable'].hypothesis.tolist()
    L += ['', f"Hypotheses labelled 'not interpretable' on this merge: {', '.join(carried) or 'none'}."]
    L += ['', 'Candidates reviewed and found not to be departures:', '']
    return L + [f"- {k}: {why}." for k, (real, why) in DEPARTURES.items() if not real]


def families_page(out:Path=FAMILIES_OUT) -> str:
    "The families study's page, from the merged study in `out`."
    import pandas as pd
    from pe_anchor.verdicts.confirm import preregistration_record
    from pe_anchor.verdicts.hypotheses import families_preregistration, families_preregistration_path
    m = read_manifest(out)
    study, pr = m['plan']['study'], families_preregistration()
    rec = preregistration_record(families_preregistration_path())
    h = pd.read_csv(out / 'tables' / 'claims' / 'hypotheses.csv', dtype={'severity': str})
    check = h[h.role == 'check'].iloc[0]
    seeds, parts = study['seeds'], m.get('part', {}).get('merged', [])
    registered = bool(h.preregistered.astype(str).eq('True').all())
    L = [f"# Three encodings beyond the paper's: the `{pr['study']}` study ({len(study['conditions'])} conditions x "
         f"{len(seeds)} seeds)", '',
         '<!-- generated by scripts/study_readme.py from this folder and the families\' pre-registration: do not '
         'edit -->',
         '', "**Our extension, not the paper's.** The paper tests three encodings (`ape`, `sincos`, `rope`) against two "
         "frameless controls (`none`, `rpt`); this study runs three encodings it does not test, "
         f"{', '.join(f'`{c}`' for c in pr['conditions'])} (CPVT's conditional position encoding, Swin/BEiT's "
         "relative position bias, RoPE with learned mixed frequencies; `lib/06b_families`), through the confirmatory "
         "study's protocol, paired by seed with its committed runs, and decides the hypotheses H1-H3 of the "
         f"pre-registration [`{rec['file']}`](../../{rec['file']}) (SHA-256 `{rec['sha256']}`), first committed in "
         f"`{rec['commit'][:10] or 'an unknown commit'}` at {git_time(rec['commit']) or 'an unknown time'}.", '',
         before_training(rec, family_runs(m, pr['conditions'])), '']
    if not registered:
        L += [f"**Not the registered study** (preset `{study['preset']}`, seeds {seed_range(seeds)}; the "
              f"document registers preset `{pr['preset']}`, seeds {seed_range(pr['seeds'])}): the verdicts "
              "below test the pipeline, not the hypotheses.", '']
    dates = [u['finished'][:10] for u in m.get('units', {}).values() if u.get('finished')]
    L += [f"Merged on {max(dates) if dates else 'an unknown date'} from {len(parts)} parts (the registered study by "
          "`pe-anchor-paper --import pe_anchor.families --merge reports/cpu-parts/seed-* reports/cpu-families-parts/seed-* "
          "--out-dir reports/cpu-families`): the committed conditions' per-run results are reused byte for byte, "
          "nothing is trained or recomputed. `python scripts/check_claims.py reports/cpu-families` merges the parts again and "
          "recomputes every hypothesis from the tables with the current code.", '',
          '## Predictions and verdicts', '',
          "The prediction is the document's, written before any run of these encodings was trained. The primary "
          'verdict uses its deciding parts: paired by seed, Holm within each hypothesis, every choice on the selection '
          'half, every reported number on the report half, the floor guard.', '',
          *verdict_rows(h), '',
          f"**The primary JPEG setting** (jpeg-q {check.severity}), recomputed from the `none` runs: "
          f"{check.part_verdict}: {check.note}.", '',
          '## The deciding parts', '',
          'Each part: the mean over seeds of its statistic with its 95 % paired t interval, the seeds, the '
          'Holm-adjusted p_fail within its hypothesis and its verdict. Every other part (readings, secondary parts, '
          "severity counts, H3's ranking of all eight conditions) is in `tables/claims/hypotheses.csv` and the report.",
          '', *deciding_rows(h), '',
          '## Departures from the pre-registration', '', *departure_lines(rec, h), '',
          '## What each part cost', '',
          "From the merged manifest: each part's runs, those it trained (the others reused), their training minutes "
          "(each run's own wall time on one core) and the part command's wall minutes.", '',
          *cost_rows(m), '', signature_line(m), '', '## Figures', '', *figure_rows(out)]
    return '\n'.join(L) + '\n'


def pages(args:list) -> dict:
    "{path: text} of the pages to write or check: the families' page of `--families OUT`, else the committed ones."
    if '--families' in args:
        out = Path(args[args.index('--families') + 1]).resolve()
        return {out / 'README.md': families_page(out)}
    found = FAMILIES_OUT / 'tables' / 'claims' / 'hypotheses.csv'
    return {OUT / 'README.md': page(), **({FAMILIES_OUT / 'README.md': families_page()} if found.exists() else {})}


def shown(path:Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


if __name__ == '__main__':
    for path, text in pages(sys.argv[1:]).items():
        if '--check' in sys.argv:
            if not path.exists() or path.read_text(encoding='utf-8') != text:
                print(f"{shown(path)} is out of step: run python scripts/study_readme.py"); sys.exit(1)
            continue
        path.write_text(text, encoding='utf-8')
        print(f"wrote {shown(path)}")
