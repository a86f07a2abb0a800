"""Write README.md from nbs/00_index.ipynb (Quarto, and so nbdev_readme, is not available here).

    python scripts/make_readme.py            # write README.md
    python scripts/make_readme.py --check    # exit 1 if README.md is out of step with the notebook (and reports/cpu)

Markdown cells are copied, code cells become python blocks. Links are written relative to `nbs/` in the notebook (so
they work in JupyterLab opened on it) and rewritten relative to the repository root here: `../x` -> `x`, any other
relative target `y` -> `nbs/y` (anchors, URLs and code are left alone). The block between `<!-- results:begin -->`
and `<!-- results:end -->` is replaced by the verdict table generated from the committed reproduction's
`reports/cpu/claims.csv` (or a marked placeholder if it is missing or lacks the verdict columns); the block between
`<!-- deviations:begin -->` and `<!-- deviations:end -->` by the settings where the `cpu` preset departs from the
paper (`pe_anchor.core.deviations('cpu')`, less the rows kept as the paper's and engineering with no effect)."""
import csv, json, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NB = ROOT / 'nbs' / '00_index.ipynb'
CLAIMS = ROOT / 'reports' / 'cpu' / 'claims.csv'
HEADER = '<!-- generated from nbs/00_index.ipynb by scripts/make_readme.py: edit the notebook, not this file -->\n\n'
RESULTS = re.compile(r'(<!-- results:begin -->\n).*?(<!-- results:end -->)', re.S)
DEVIATIONS = re.compile(r'(<!-- deviations:begin -->\n).*?(<!-- deviations:end -->)', re.S)
FENCE = re.compile(r'^\s{0,3}(`{3,}|~{3,})')
CODE_SPAN = re.compile(r'(`+).*?(?<!`)\1(?!`)', re.S)
LINK = re.compile(r'(\]\(\s*<?)([^)\s>]+)')
SCHEME = re.compile(r'^[a-zA-Z][a-zA-Z0-9+.-]*:')

def from_root(target:str) -> str:
    "A link target relative to `nbs/`, relative to the repository root instead."
    if target.startswith(('#', '/')) or SCHEME.match(target): return target
    return target[3:] if target.startswith('../') else 'nbs/' + target

def _links(prose:str) -> str:
    "Rewrite the link targets of `prose`, leaving code spans alone."
    parts, last = [], 0
    for m in CODE_SPAN.finditer(prose):
        parts += [LINK.sub(lambda l: l.group(1) + from_root(l.group(2)), prose[last:m.start()]), m.group(0)]
        last = m.end()
    return ''.join(parts + [LINK.sub(lambda l: l.group(1) + from_root(l.group(2)), prose[last:])])

def rewrite_links(text:str) -> str:
    "Every markdown link target of `text` relative to the repository root; fenced code unchanged."
    out, chunk, fence = [], [], None
    for line in text.splitlines(keepends=True):
        m = FENCE.match(line)
        if fence:
            out.append(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence): fence = None
        elif m: out += [_links(''.join(chunk)), line]; chunk, fence = [], m.group(1)
        else: chunk.append(line)
    return ''.join(out + [_links(''.join(chunk))])

def results_table(path=CLAIMS) -> str:
    "The verdict of every claim per RPI estimator, from a reproduction's claims.csv (a placeholder if unusable)."
    need = {'claim', 'claim_text', 'verdict_batch', 'verdict_image'}
    rows = list(csv.DictReader(path.open(encoding='utf-8'))) if path.exists() else []
    if not rows or not need <= set(rows[0]):
        return ('> **Placeholder: no verdict table** (`reports/cpu/claims.csv` is missing or has no verdict columns): '
                'regenerate `reports/cpu`, then run `python scripts/make_readme.py`.\n')
    claims = {r['claim']: r for r in rows}  # one verdict per claim and estimator, repeated on each of its parts
    lines = ['| claim | what is tested | verdict, batch RPI (the paper\'s estimator) | verdict, image RPI |',
             '|---|---|---|---|']
    lines += [f"| {c} | {r['claim_text']} | **{r['verdict_batch']}** | **{r['verdict_image']}** |"
              for c, r in sorted(claims.items())]
    glance = path.parent / 'figures' / 'glance.png'
    figure = (f"![Every claim at a glance: its deciding statistic with its interval, beside the paper's value]"
              f"({glance.relative_to(ROOT).as_posix()})\n\n" if glance.exists() else '')
    return (figure + staleness(rows) + f"Verdicts of the committed reproduction ({seeds_of(rows)} seeds per condition; "
            f"generated from `reports/cpu/claims.csv`; every part, number and interval is in the claims table and "
            f"the report):\n\n" + '\n'.join(lines) + '\n')

def seeds_of(rows:list) -> int:
    "The number of seeds per condition behind a claims table (the largest `n_seeds` of its parts)."
    return max(int(float(r['n_seeds'])) for r in rows if r.get('n_seeds'))

def staleness(rows:list, preset:str='cpu') -> str:
    "A warning when the committed claims predate what the preset now asks for (seeds, severity verdicts); else ''."
    sys.path.insert(0, str(ROOT))
    from pe_anchor.core import PRESETS
    want, have = len(PRESETS[preset].study['seeds']), seeds_of(rows)
    missing = [what for what, absent in (
        (f"{want} seeds per condition (it has {have})", have != want),
        ("the C4/C5 verdicts at every corruption severity", not any(r['role'] == 'severity summary' for r in rows)),
    ) if absent]
    if not missing: return ''
    return (f"> **The committed reproduction predates the current `{preset}` preset**: it lacks "
            f"{' and '.join(missing)}. `bash scripts/reproduce.sh` regenerates it with the current code (its cost: "
            f"[benchmarks](benchmarks/README.md#the-cpu-reproduction)); until then the verdicts below are those of "
            f"the committed run.\n\n")

def deviations_table(preset:str='cpu') -> str:
    "The settings where `preset` departs from the paper: setting, the paper's value, ours, and why."
    sys.path.insert(0, str(ROOT))
    from pe_anchor.core import deviations
    kept = ('as the paper', 'no effect on the numbers')  # the paper's setting, or engineering with no effect
    rows = [r for r in deviations(preset) if r['why'] and not any(k in r['why'] for k in kept)]
    cell = lambda v: str(v).replace('|', '\\|')
    lines = ['| | setting | the paper | ours | why |', '|---|---|---|---|---|']
    lines += [f"| {r['section']} | `{r['setting']}` | {cell(r['paper'])} | {cell(r['ours'])} | {cell(r['why'])} |"
              for r in rows]
    return '\n'.join(lines) + '\n'

def readme_text() -> str:
    "The README: the index notebook's cells, links rewritten, the results block generated."
    cells = json.loads(NB.read_text(encoding='utf-8'))['cells']
    parts = [''.join(c['source']) if c['cell_type'] == 'markdown' else f"```python\n{''.join(c['source'])}\n```"
             for c in cells]
    text = rewrite_links('\n\n'.join(parts))
    text = RESULTS.sub(lambda m: m.group(1) + results_table() + m.group(2), text)
    text = DEVIATIONS.sub(lambda m: m.group(1) + deviations_table() + m.group(2), text)
    return HEADER + text + '\n'

if __name__ == '__main__':
    text, path = readme_text(), ROOT / 'README.md'
    if '--check' in sys.argv: sys.exit(0 if path.exists() and path.read_text(encoding='utf-8') == text else 1)
    path.write_text(text, encoding='utf-8')
