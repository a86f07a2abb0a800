"""Write README.md and docs/deviations.md from nbs/00_index.ipynb and the committed study (Quarto, and so
nbdev_readme, is not available here), and fill in the generated blocks of the other docs/*.md pages.

    python scripts/make_readme.py            # write README.md, docs/deviations.md and the docs pages' blocks
    python scripts/make_readme.py --check    # exit 1 if any is out of step with the notebook, the presets or reports/

Markdown cells are copied, code cells become python blocks. Links are written relative to `nbs/` in the notebook (so
they work in JupyterLab opened on it) and rewritten relative to the repository root here: `../x` -> `x`, any other
relative target `y` -> `nbs/y` (anchors, URLs and code are left alone). Generated blocks (`generated_blocks`, also used
by scripts/build_docs.py for the docs site's home page) replace what lies between their markers:

- `<!-- results:begin -->` ... `<!-- results:end -->`: which study the committed `reports/cpu` is (confirmatory when its
  claims carry the pre-registered primary verdicts, else exploratory: its seeds and date, from its manifest), the glance
  figure if it is committed (a one-line note otherwise) and the verdict of every claim (the primary verdict beside the
  exploratory study's, or the exploratory verdicts labelled so), from `reports/cpu/claims.csv` (a marked placeholder
  if unusable);
- `<!-- costs:begin -->` ... `<!-- costs:end -->`: each preset's summary and cost (`pe_anchor.base.core.PRESETS`);
- `<!-- families:begin -->` ... `<!-- families:end -->`: the families study (our extension): in progress, with how many
  of its pre-registered parts are committed (`reports/cpu-families-parts/`), until its merge `reports/cpu-families`
  holds the hypotheses' table; then each hypothesis's prediction beside its primary verdict, and one line on what
  holds only at H2's primary setting (`primary_only`: its verdict at the paper's JPEG quality, along the blur ladder,
  and the blur comparisons that fail), all from the table's rows;
- `<!-- provenance:begin -->` ... `<!-- provenance:end -->`: how many of the confirmatory runs were trained from a
  dirty working tree, from the committed parts' run records.
- `<!-- rooms:begin -->` ... `<!-- rooms:end -->`: the package's rooms (sub-packages, lowest first) and their library
  notebooks, from `scripts/layers.py`;
- `<!-- ladder:begin -->` ... `<!-- ladder:end -->`: the depth ladder's pilot (issue 52, exploratory): its figure, its
  table under batch RPI and the decision, from `reports/cpu-deep-pilot/ladder.md` (`pe_anchor.report.ladder.write_ladder`).

The pages of docs/ other than deviations.md (what the README links to rather than shows: `paper.md`, `costs.md`,
`reproduce.md`, ...) are written by hand; their generated blocks are filled in the same way, links relative to docs/.

docs/deviations.md is every row of `pe_anchor.base.deviations.deviations('cpu')` (where the paper's value comes from, ours,
why), with the measured JPEG Fragility Score of `none` in the committed study beside the paper's, computed from the
files."""
import csv, json, posixpath, re, statistics, sys
from pathlib import Path
from pe_anchor.report.pages import label_notes, other_readings, seed_range, severity_counts, study_kind, study_of  # noqa: F401
from pe_anchor.engine.plan import read_manifest
from pe_anchor.engine.upkeep import part_manifests

ROOT = Path(__file__).resolve().parent.parent
NB = ROOT / 'nbs' / '00_index.ipynb'
REPORT = ROOT / 'reports' / 'cpu'
CLAIMS = REPORT / 'claims.csv'
DOCS = ROOT / 'docs'  # the docs pages: written by hand, their generated blocks filled in here
DEVIATIONS_MD = DOCS / 'deviations.md'
PAPER_REFERENCE = ROOT / 'data' / 'paper_reference.csv'
HEADER = '<!-- generated from nbs/00_index.ipynb by scripts/make_readme.py: edit the notebook, not this file -->\n\n'
BLOCK = '(<!-- {0}:begin -->\n).*?(<!-- {0}:end -->)'
PLACEHOLDER = 'Placeholder: no verdict table'  # scripts/check_docs.py fails a page that shows it
FENCE = re.compile(r'^\s{0,3}(`{3,}|~{3,})')
CODE_SPAN = re.compile(r'(`+).*?(?<!`)\1(?!`)', re.S)
LINK = re.compile(r'(\]\(\s*<?)([^)\s>]+)')
SCHEME = re.compile(r'^[a-zA-Z][a-zA-Z0-9+.-]*:')

def from_root(target:str) -> str:
    "A link target relative to `nbs/`, relative to the repository root instead."
    if target.startswith(('#', '/')) or SCHEME.match(target): return target
    return target[3:] if target.startswith('../') else 'nbs/' + target

def in_folder(target:str, folder:str) -> str:
    "A link target relative to the repository root, relative to `folder` (a folder of the repository) instead."
    if target.startswith(('#', '/')) or SCHEME.match(target) or folder in ('', '.'): return target
    path, hash_, frag = target.partition('#')
    rel = posixpath.relpath(path, folder) + ('/' if path.endswith('/') else '')
    return rel + hash_ + frag

def _links(prose:str, fn) -> str:
    "Rewrite the link targets of `prose` by `fn`, leaving code spans alone."
    parts, last = [], 0
    for m in CODE_SPAN.finditer(prose):
        parts += [LINK.sub(lambda l: l.group(1) + fn(l.group(2)), prose[last:m.start()]), m.group(0)]
        last = m.end()
    return ''.join(parts + [LINK.sub(lambda l: l.group(1) + fn(l.group(2)), prose[last:])])

def rewrite_links(text:str, fn=from_root) -> str:
    "Every markdown link target of `text` rewritten by `fn` (default: `from_root`); fenced code unchanged."
    out, chunk, fence = [], [], None
    for line in text.splitlines(keepends=True):
        m = FENCE.match(line)
        if fence:
            out.append(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence): fence = None
        elif m: out += [_links(''.join(chunk), fn), line]; chunk, fence = [], m.group(1)
        else: chunk.append(line)
    return ''.join(out + [_links(''.join(chunk), fn)])

def core(module:str='base.core'):
    "A module of pe_anchor (`pe_anchor.base.core` by default), imported when first needed."
    import importlib
    return importlib.import_module(f'pe_anchor.{module}')

# ---------------------------------------------------------------- which study the committed reproduction is
def study_banner(report:Path=REPORT) -> str:
    "One paragraph naming a committed study (confirmatory or exploratory), its seeds and date, and where the other is."
    st, cpu, rel = study_of(report), core().PRESETS['cpu'].study, report.relative_to(ROOT).as_posix()
    where = f"`{rel}`, seeds {seed_range(st['seeds'])}, {len(st['seeds'])} per condition, finished {st['date']}"
    if study_kind(report) == 'confirmatory':
        return (f"**Confirmatory study** ({where}), decided by the rules of the [pre-registration]"
                f"(data/preregistration-cpu.md), committed before any of its runs was trained. The exploratory study "
                f"that chose the preset is in `reports/cpu-exploratory`.")
    fresh, done = cpu['seeds'] != st['seeds'], report != REPORT and study_kind(REPORT) == 'confirmatory'
    return (f"**Exploratory study** ({where}): it was used to choose the `cpu` preset (the `rrc_flip` augmentation, "
            f"10 epochs, 6 seeds), so its verdicts are exploratory and confirm nothing. "
            + (f"The pre-registered **confirmatory study** on fresh seeds {seed_range(cpu['seeds'])} is in "
               f"`reports/cpu`." if done else
               f"The pre-registered **confirmatory study** on fresh seeds {seed_range(cpu['seeds'])} is in progress "
               f"([pre-registration](data/preregistration-cpu.md), committed before any of its runs was trained)."
               if fresh else "The current `cpu` preset has the same seeds: no confirmatory study is configured."))

# ---------------------------------------------------------------- the verdicts
def glance_figure(report:Path=REPORT) -> str:
    "The glance figure's markdown if it is committed, else a one-line note."
    glance = report / 'figures' / 'glance.png'
    rel = glance.relative_to(ROOT).as_posix()
    if glance.exists():
        return (f"![Every claim at a glance ({'confirmatory' if CONFIRMED() else 'exploratory'} study): the statistic "
                f"that decided its verdict, with its "
                f"interval, beside the paper's value]({rel})\n\n")
    return (f"*The at-a-glance figure (`{rel}`) is not committed: the committed report predates it; the next "
            f"report (the merge of the confirmatory parts) writes it.*\n\n")

def CONFIRMED() -> bool:
    "Does the committed claims table carry the pre-registered primary verdicts?"
    return study_kind(REPORT) == 'confirmatory'

def results_table(path=CLAIMS) -> str:
    "The study banner, the glance figure and the exploratory verdict of every claim per RPI estimator."
    need = {'claim', 'claim_text', 'verdict_batch', 'verdict_image'}
    rows = list(csv.DictReader(path.open(encoding='utf-8'))) if path.exists() else []
    if not rows or not need <= set(rows[0]):
        return (f'> **{PLACEHOLDER}** (`reports/cpu/claims.csv` is missing or has no verdict columns): '
                'regenerate `reports/cpu`, then run `python scripts/make_readme.py`.\n')
    if any(r.get('role') == 'primary' for r in rows): return confirmatory_table(rows, path)
    claims = {r['claim']: r for r in rows}  # one verdict per claim and estimator, repeated on each of its parts
    lines = ['| claim | what is tested | exploratory verdict, batch RPI (the paper\'s estimator) | '
             'exploratory verdict, image RPI |', '|---|---|---|---|']
    lines += [f"| {c} | {r['claim_text']} | **{r['verdict_batch']}** | **{r['verdict_image']}** |"
              for c, r in sorted(claims.items())]
    return (study_banner(path.parent) + '\n\n' + glance_figure(path.parent)
            + f"Exploratory verdicts ({seeds_of(rows)} seeds per condition; from `reports/cpu/claims.csv`, where every "
              f"part, number and interval is; the full [report](reports/cpu/report.html)):\n\n" + '\n'.join(lines) + '\n')

EXPLORATORY = ROOT / 'reports' / 'cpu-exploratory' / 'claims.csv'  # where the exploratory study goes once replaced

def confirmatory_table(rows:list, path:Path) -> str:
    """The primary verdict of every claim (the pre-registered rules), beside the exploratory study's verdict and, for
    C4/C5, the severity counts."""
    prim = {r['claim']: r for r in rows if r.get('role') == 'primary'}
    counts = severity_counts(rows)
    old = {}
    if EXPLORATORY.exists():
        old = {r['claim']: r.get('verdict_batch', '') for r in csv.DictReader(EXPLORATORY.open(encoding='utf-8'))}
    text = {r['claim']: r['claim_text'] for r in rows}
    other = other_readings(rows)
    scale = scale_of(path.parent)
    lines = ['| claim | what is tested | **primary verdict** (pre-registered rules) | decided at | where another reading '
             'or estimator gives another verdict | exploratory verdict (seeds 0-3, batch RPI) | across the severity '
             'ladders (settings per verdict) |', '|---|---|---|---|---|---|---|']
    lines += [f"| {c} | {text[c]} | **{p['part_verdict']}** | {scale} | {'<br>'.join(other.get(c, [])) or 'none'} | "
              f"{old.get(c, 'n/a')} | {'<br>'.join(counts.get(c, []))} |" for c, p in sorted(prim.items())]
    return (study_banner(path.parent) + " One primary verdict per claim from its deciding parts, paired by seed, Holm "
            "within the claim, every choice on the selection half and every reported number on the report half (the "
            "study's [page](reports/cpu/README.md) has the predictions, the departures and the costs; the [report]"
            "(reports/cpu/report.html) every part).\n\n" + glance_figure(path.parent) + '\n'.join(lines) + '\n\n'
            + '\n'.join(f"- {x}" for x in label_notes(path.parent)) + '\n')

def scale_of(report:Path=REPORT) -> str:
    "The scale a study reached its verdicts at: depth, token grid and width of its runs (its plan's preset and overrides)."
    st = read_manifest(report)['plan']['study']
    m = core('base.config').make_config('ape', st['preset'], **st.get('overrides', {})).model
    g = m.img_size // m.patch_size
    return f"depth {m.depth}, {g} x {g} tokens, width {m.dim} (`{st['preset']}`)"

def seeds_of(rows:list) -> int:
    "The number of seeds per condition behind a claims table (the largest `n_seeds` of its parts)."
    return max(int(float(r['n_seeds'])) for r in rows if r.get('n_seeds'))

def costs_table() -> str:
    "Each preset: what it is, what a full reproduction costs, and the command."
    P = core().PRESETS
    lines = ['| preset | what it is | what a full reproduction costs |', '|---|---|---|']
    lines += [f"| `{name}` | {p.summary} | {p.cost} |" for name, p in P.items()]
    return '\n'.join(lines) + '\n'

def provenance_text() -> str:
    "What the committed parts' run records say of the working tree each run was trained from."
    runs = [r for m in part_manifests(ROOT / 'reports' / 'cpu-parts').values() for r in m['part']['runs']]
    dirty = [r for r in runs if r.get('provenance', {}).get('git', {}).get('dirty')]
    kept = [r for r in dirty if r['provenance']['git'].get('diff_sha256')]
    commits = sorted({r['provenance']['git']['commit'][:10] for r in dirty})
    return (f"**Dirty trees.** {len(dirty)} of the {len(runs)} runs of the confirmatory study were trained from a working "
            f"tree with uncommitted changes (their records: `dirty: true`, commit {', '.join(f'`{c}`' for c in commits)}"
            f"); {len(kept)} of them record what the changes were, so those {len(dirty) - len(kept)} are reproducible "
            "from their config and commit only up to the unrecorded changes (a departure in the pre-registration). "
            "From now on a run trained from a dirty tree records the diff's SHA-256 in its `done.json` and stores the "
            "diff beside it (`dirty.diff`, [`lib/12_training`](nbs/lib/12_training.ipynb)).\n\n"
            + weights_made_text(runs))

def weights_made_text(runs:list) -> str:
    "What the run records say of where the committed weights come from (`weights.made`), when another training."
    made = [r['weights']['made'] for r in runs if isinstance(r.get('weights'), dict) and r['weights'].get('made')]
    if not made: return ''
    commits = list(dict.fromkeys(m['git']['commit'][:7] for m in made))
    checks = sorted({m['check'] for m in made})
    return (f"**Two trainings per run.** The committed weights of {len(made)} of the {len(runs)} runs are not those of the "
            "training that produced the study's results (that run cache was gone): each part's runs were trained "
            f"again from a clean commit ({', '.join(f'`{c}`' for c in commits)}) on the kind of CPU that trained the "
            f"study, and bound only after {'; '.join(checks)}. Each run's record names both: its `provenance` (the "
            "training for the study) and `weights.made` (the training for its weights); the study page lists them "
            "per part ([reports/cpu](reports/cpu/README.md#where-the-committed-weights-come-from)).\n")

FAMILIES = ROOT / 'reports' / 'cpu-families'  # the families study, once merged (our extension)
FAMILY_PARTS = ROOT / 'reports' / 'cpu-families-parts'

def family_seeds(pr:dict) -> list:
    "The seeds of the families' committed parts (a finished part lists its runs' keys)."
    keys = [k for m in part_manifests(FAMILY_PARTS).values() for k in m['part'].get('keys', [])]
    return sorted({s for c, s in keys if c in pr['conditions']})

def families_text() -> str:
    "The families study: in progress (k of 6 parts) until its merge holds the hypotheses, then their verdicts."
    pr, table = core('verdicts.hypotheses').families_preregistration(), FAMILIES / 'tables' / 'claims' / 'hypotheses.csv'
    if not table.exists():
        done = family_seeds(pr)
        return (f"**In progress**: {len(done)} of {len(pr['seeds'])} parts committed (seeds "
                f"{seed_range(done) if done else 'none'}; the rest are computed one at a time). No hypothesis is decided "
                "or looked at before all six are merged.\n")
    prim = [r for r in csv.DictReader(table.open(encoding='utf-8')) if r['role'] == 'primary']
    lines = ['| hypothesis | what it asks | predicted | **primary verdict** |', '|---|---|---|---|']
    lines += [f"| {r['hypothesis']} | {r['hypothesis_text']} | {r['prediction']} | **{r['part_verdict']}** |"
              for r in prim]
    same = sum(r['prediction'] == r['part_verdict'] for r in prim)
    return (f"**Decided** on the merge of all {len(pr['seeds'])} seeds (`reports/cpu-families`; its "
            f"[page](reports/cpu-families/README.md) has the deciding parts, the departures and the figures); "
            f"{same} of {len(prim)} verdicts as predicted:\n\n" + '\n'.join(lines) + '\n\n'
            + primary_only(list(csv.DictReader(table.open(encoding='utf-8')))) + families_glance())

def counted(row:dict, verdict:str) -> int:
    "How many settings of a 'severity counts' row have `verdict` (its note: 'holds 0; does not hold 7 (...); ...')."
    return next((int(m.group(1)) for x in row['note'].split(';')
                 if (m := re.fullmatch(rf'{verdict} (\d+)(?: \(.*\))?', x.strip()))), 0)

def encoding(r:dict) -> str: return f"`{r['hypothesis'].split('-', 1)[1]}`"  # 'H2-rpb' -> '`rpb`'

def at_paper_jpeg(mine:list) -> str:
    "'inconclusive for `cpe`, `rpb`': the hypotheses whose verdict at the paper's JPEG quality is not the primary one."
    prim, out = {r['hypothesis']: r['part_verdict'] for r in mine if r['role'] == 'primary'}, {}
    for r in mine:
        if r['part'] == 'verdict at jpeg paper' and r['part_verdict'] != prim[r['hypothesis']]:
            out.setdefault(r['part_verdict'], []).append(encoding(r))
    return '; '.join(f"{v} for {', '.join(e)}" for v, e in out.items()) or 'as at the primary setting'

def blur_ladder(mine:list) -> str:
    "How often the hypotheses hold and fail along the blur-ks ladder (its 'severity counts' rows), most failures first."
    rows = [r for r in mine if r['role'] == 'severity counts' and r['corruption'] == 'blur-ks']
    n, held = int(rows[0]['part_verdict'].split(' of ')[-1]), max(counted(r, 'holds') for r in rows)
    fails = sorted(((counted(r, 'does not hold'), encoding(r)) for r in rows), reverse=True)
    return (f"holds at {held or 'none'} of the {n} blur-ks settings and does not hold at {fails[0][0]} for "
            f"{fails[0][1]} ({', '.join(f'{e} {k}' for k, e in fails[1:])})")

def blur_failures(mine:list) -> str:
    "Which tabled blur comparisons fail, against which control (said less fragile where every interval is below 0)."
    rows = [r for r in mine if r['role'] == 'secondary' and r['corruption'] in ('blur', 'blur-ks')]
    where = lambda r: r['part'].split(' (')[-1].rstrip(')').replace('blur paper', "the paper's blur")
    by = {}
    for r in rows:
        if r['part_verdict'] == 'does not hold':
            by.setdefault(r['part'].split(' vs ')[0], {}).setdefault(encoding(r), []).append(r)
    below = all(float(r['ci_high']) < 0 for e in by.values() for rs in e.values() for r in rs)
    says = lambda c, es: (f"against `{c}`, " + ('less fragile than ' if below else 'for ') + ', and than '.join(
        f"{e} at {' and '.join(map(where, rs))}" for e, rs in sorted(es.items(), key=lambda x: -len(x[1]))))
    return (f"of the blur comparisons in the table ({', '.join(dict.fromkeys(map(where, rows)))}), the failing ones "
            f"are {'all ' if len(by) == 1 else ''}" + '; '.join(says(c, es) for c, es in by.items())
            + (' (the interval of the FS difference wholly below 0)' if below else ''))

def primary_only(rows:list, h='H2') -> str:
    """What of hypothesis `h` holds only at its primary setting, from the hypotheses' table: its verdict at the
    paper's JPEG quality, along the blur ladder, and the blur comparisons that fail."""
    mine = [r for r in rows if r['hypothesis'].startswith(h + '-')]
    jq = next(f"{r['corruption']} {r['severity']}" for r in mine if r['role'] == 'deciding')
    return (f"**Only at the primary setting** ({jq}, damage-matched; from `tables/claims/hypotheses.csv`): at the "
            f"paper's own JPEG quality {h} is {at_paper_jpeg(mine)}; under blur it {blur_ladder(mine)}: "
            f"{blur_failures(mine)}.\n")

def families_glance() -> str:
    "The families' glance figure under their verdict table, if the merged study drew it."
    png = FAMILIES / 'figures' / 'families_glance.png'
    return (f"\n![The families' hypotheses at a glance: each one's deciding part, its interval and verdict]"
            f"({png.relative_to(ROOT).as_posix()})\n" if png.exists() else '')

def layer0_distances(study:Path) -> dict:
    "{condition: (unpermuted, under batch RPI, baseline)}: layer 0's mean attention distance, averaged over heads."
    f = study / 'tables' / 'attention' / 'attention_summary.csv'
    rows = [r for r in csv.DictReader(f.open(encoding='utf-8')) if r['layer'] == '0'] if f.exists() else []
    by = {}
    for r in rows: by.setdefault((r['condition'], r['permuted']), []).append(float(r['distance_mean']))
    base = {r['condition']: float(r['baseline']) for r in rows}
    mean = lambda k: statistics.fmean(by[k]) if k in by else float('nan')
    return {c: (mean((c, 'none')), mean((c, 'batch')), base[c]) for c in dict.fromkeys(c for c, _ in by)}

def attention_text() -> str:
    "Layer 0's mean attention distance per condition in both committed studies, unpermuted and under batch RPI."
    studies = [(REPORT, 'confirmatory study'), (FAMILIES, 'families study')]
    found = {label: layer0_distances(d) for d, label in studies if (d / 'tables' / 'attention').exists()}
    if not found: return 'No committed study holds the attention analysis yet.\n'
    lines = ['| study | condition | layer 0, unpermuted | under batch RPI | uniform attention |', '|---|---|---|---|---|']
    shown = set()
    for label, rows in found.items():  # the families study's own runs of the paper's five are the confirmatory ones
        lines += [f"| {label} | `{c}` | {a:.2f} | {b:.2f} | {u:.2f} |" for c, (a, b, u) in rows.items() if c not in shown]
        shown |= set(rows)
    return ('Mean attention distance at layer 0 (patches on the 7 x 7 grid, averaged over the 4 heads and the 6 seeds; '
            "from each study's `tables/attention/attention_summary.csv`):\n\n" + '\n'.join(lines) + '\n')

LADDER = ROOT / 'reports' / 'cpu-deep-pilot'  # the depth ladder's pilot (issue 52): `pe_anchor.report.ladder.write_ladder`

def ladder_text() -> str:
    "The depth ladder: its figure, the table under batch RPI (the pre-registration's) and the decision, from ladder.md."
    md = LADDER / 'ladder.md'
    if not md.exists(): return 'No depth ladder is committed yet.\n'
    blocks = md.read_text(encoding='utf-8').strip().split('\n\n')
    at = blocks.index('**SSDC under batch RPI**')
    decision = [b for i, b in enumerate(blocks) if b.startswith('**The decision**') or i and
                blocks[i - 1].startswith('**The decision**')]
    return '\n\n'.join(['![SSDC under RPI per layer, depth 4, 8 and 12](reports/cpu-deep-pilot/figures/ladder.png)',
                         *blocks[at:at + 2], *decision]) + '\n'

def rooms_table() -> str:
    "The rooms of the package (`scripts/layers.py`'s ROOMS, lowest first), each with its library notebooks."
    from layers import ROOMS, room
    nbs = {}
    for nb in sorted((ROOT / 'nbs' / 'lib').glob('*.ipynb')):
        m = re.search(r'#\|\s*default_exp\s+([\w.]+)', nb.read_text(encoding='utf-8'))
        nbs.setdefault(room(m.group(1)) if m else 'tests', []).append(f"[`{nb.stem}`](nbs/lib/{nb.name})")
    rows = [f"| `pe_anchor.{r}` | {', '.join(nbs.get(r, []))} | {why} |" for r, why in ROOMS.items()]
    tests = f"| (tests only) | {', '.join(nbs.get('tests', []))} | the hostile-input catalogue and the threat model of parts |"
    return '\n'.join(['| room | library notebooks | what it holds |', '|---|---|---|', *rows, tests]) + '\n'

GENERATED = dict(results=results_table, costs=costs_table, provenance=provenance_text, families=families_text,
                 attention=attention_text, ladder=ladder_text, rooms=rooms_table)

def generated_blocks(text:str, folder:str='') -> str:
    "`text` with every generated block (`GENERATED`) filled in between its markers, links relative to `folder`."
    for name, fn in GENERATED.items():
        fill = lambda m: m.group(1) + rewrite_links(fn(), lambda t: in_folder(t, folder)) + m.group(2)
        text = re.sub(BLOCK.format(name), fill, text, flags=re.S)
    return text

# ---------------------------------------------------------------- the deviations page
def measured_fs(condition='none', corruption='jpeg', report:Path=REPORT) -> tuple:
    "(mean FS over seeds, seeds) of `condition` at the paper's setting of `corruption`, final models, unpermuted."
    rows = [r for r in csv.DictReader((report / 'tables' / 'fragility' / 'fragility.csv').open(encoding='utf-8'))
            if (r['condition'], r['corruption'], r['severity'], r['checkpoint'], r['permuted']) ==
               (condition, corruption, 'paper', 'final', 'none') and float(r['alpha']) == 1.0]
    return statistics.fmean(float(r['fs']) for r in rows), len({r['seed'] for r in rows})

def paper_fs(condition='none', metric='fs_jpeg') -> float:
    "The paper's Table 5 value (data/paper_reference.csv)."
    return next(float(r['value']) for r in csv.DictReader(PAPER_REFERENCE.open(encoding='utf-8'))
                if (r['figure'], r['condition'], r['metric']) == ('Table 5', condition, metric))

def deviation_rows(preset='cpu') -> list:
    "`deviations(preset)`, the corruption row with the committed study's measured JPEG FS of `none` beside the paper's."
    rows = core('base.deviations').deviations(preset)
    st, half = study_of(), core('verdicts.confirm').preregistration()['split']['images_per_half']
    plan = read_manifest(REPORT)['plan']['study']
    for r in rows:
        if r['setting'] == 'corruption pixels':
            fs, n = measured_fs()
            r['why'] += (f". Measured in the {study_kind()} study (`{REPORT.relative_to(ROOT).as_posix()}`): JPEG FS of "
                         f"`none` {fs:.2f} (mean of {n} seeds) against the paper's {paper_fs():.2f}")
        if r['setting'] == 'n_images':
            r['why'] = (f"every SSDC (per layer, under RPI, and the α sweep's ΔSSDC) on {plan['n_images']:,} evenly "
                        f"spaced test images; every accuracy and Fragility Score, the α sweep's included, on all "
                        f"{half:,} images of a half in the {study_kind()} study (split `{plan['split']}`; the paper: "
                        f"its last batch of 1,000 for SSDC, all 5,000 for FS). Project choice")
        if r['setting'] == 'fragility_images':
            r['why'] = (f"every image of the half that reports: {half:,} in the {study_kind()} study (the paper: all "
                        f"5,000 of its validation images)")
        if r['setting'] == 'corruptions':
            r['why'] = r['why'].replace('severity curves, our extension', 'severity curves; a ladder setting (the '
                                        'damage-matched one) decides C4 and C5 in the confirmatory study')
    return rows

def deviations_page(preset='cpu') -> str:
    "docs/deviations.md: every setting of `preset` beside the paper's, with where the paper's value comes from."
    cell = lambda v: str(v).replace('|', '\\|')
    rows = deviation_rows(preset)
    lines = ['| | setting | the paper | source | ours | why |', '|---|---|---|---|---|---|']
    lines += [f"| {r['section']} | `{r['setting']}` | {cell(r['paper'])} | {cell(r['source'])} | {cell(r['ours'])} | "
              f"{cell(r['why'])} |" for r in rows]
    n_paper = sum(r['why'] == 'as the paper' for r in rows)
    return (f"<!-- generated by scripts/make_readme.py from pe_anchor.base.deviations.deviations('{preset}'): "
            f"do not edit -->\n\n"
            f"# Where the `{preset}` preset departs from the paper\n\n"
            f"Every config field and study setting of the `{preset}` preset, and what the code does that no setting "
            f"names, beside what the paper reports. **source** says where the paper's value comes from: the paper's "
            f"text (\"paper: Table 2\", a section), the code its author released after the paper (\"released code\"; "
            f"no training code was released), or \"not reported\" (then the value is our choice, and **why** says so). "
            f"\"Scale\": forced by a laptop CPU; \"Project choice\": ours where the paper is silent or ambiguous; "
            f"\"as the paper\": the paper's value ({n_paper} of {len(rows)} rows). Generated from "
            f"`pe_anchor.base.deviations.deviations('{preset}')` (`nbs/lib/00b_deviations.ipynb`); the report prints the "
            f"same table for the runs it used.\n\n" + '\n'.join(lines) + '\n')

# ---------------------------------------------------------------- the README
def readme_text() -> str:
    "The README: the index notebook's cells, links rewritten, the generated blocks filled in."
    cells = json.loads(NB.read_text(encoding='utf-8'))['cells']
    parts = [''.join(c['source']) if c['cell_type'] == 'markdown' else f"```python\n{''.join(c['source'])}\n```"
             for c in cells]
    return HEADER + generated_blocks(rewrite_links('\n\n'.join(parts))) + '\n'

def page_text(page:Path) -> str:
    "A hand-written page of docs/ with its generated blocks filled in (links relative to its folder)."
    return generated_blocks(page.read_text(encoding='utf-8'), page.parent.relative_to(ROOT).as_posix())

def outputs() -> dict:
    "Each generated file and its text: the README, the deviations page, and every other docs/ page's blocks."
    pages = [p for p in sorted(DOCS.glob('*.md')) if p != DEVIATIONS_MD]
    return {ROOT / 'README.md': readme_text(), DEVIATIONS_MD: deviations_page(), **{p: page_text(p) for p in pages}}

if __name__ == '__main__':
    files = outputs()
    if '--check' in sys.argv:
        stale = [p.relative_to(ROOT).as_posix() for p, t in files.items()
                 if not p.exists() or p.read_text(encoding='utf-8') != t]
        if stale: print(f"out of step: {', '.join(stale)} (run python scripts/make_readme.py)")
        sys.exit(1 if stale else 0)
    for p, t in files.items(): p.write_text(t, encoding='utf-8')
