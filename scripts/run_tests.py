"""Run pe_anchor's checks and notebook tests; print `N passed, N failed` last. Used by scripts/test.sh and .ci/run."""
import csv, json, os, re, shutil, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBS = sorted(p for p in (ROOT / 'nbs').rglob('*.ipynb')
             if not any(part.startswith(('_', '.')) for part in p.relative_to(ROOT / 'nbs').parts))

def sh(*cmd, **kw): return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, **kw)
def changed(paths): return sh('git', 'status', '--porcelain', '--', *paths).stdout.strip()

def check_clean():
    "nbdev_clean must change nothing."
    before = changed(['nbs']); sh('nbdev_clean'); after = changed(['nbs'])
    return before == after, f"nbdev_clean changed notebooks:\n{after}"

def check_jupyter():
    """The notebooks are as JupyterLab saves them (scripts/jupyter_clean.py --check: language_info, sources as lines),
    come back byte for byte through a Jupyter server's contents API, and 00_index and 05_fragility open in a headless
    JupyterLab without the unsaved-changes mark and save unchanged (--lab; the browser part skipped with a note)."""
    r = sh(sys.executable, 'scripts/jupyter_clean.py', '--check', '--lab')
    for line in r.stdout.splitlines():
        if line.startswith('note:'): print(f"  check_jupyter {line}")
    return r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]

def check_export():
    "nbdev_export must change nothing."
    before = changed(['pe_anchor']); r = sh('nbdev_export'); after = changed(['pe_anchor'])
    return r.returncode == 0 and before == after, f"nbdev_export changed the library (not in sync with nbs/):\n{after}\n{r.stderr[-2000:]}"

def check_parameters():
    """Every experiment notebook (one with a `_before = ...` snapshot for check_params) keeps exactly one `parameters`
    cell, checked by `check_params` (or `notebook_params`, which also takes the old spellings) in the cell right after
    it, and runs only the experiment: no exports, no tests."""
    bad = []
    for nb in NBS:
        cells = [c for c in json.loads(nb.read_text())['cells'] if c['cell_type'] == 'code']
        text = [''.join(c['source']) for c in cells]
        if not any(t.startswith('_before = ') for t in text): continue  # papermill's snapshot: an experiment notebook
        tagged = [i for i, c in enumerate(cells) if 'parameters' in c.get('metadata', {}).get('tags', [])]
        if len(tagged) != 1: bad.append(f"{nb.name}: {len(tagged)} cells tagged 'parameters'"); continue
        after = text[tagged[0] + 1] if tagged[0] + 1 < len(text) else ''
        if not after.startswith(('check_params(', 'globals().update(notebook_params(')):
            bad.append(f"{nb.name}: the cell after the parameters does not check them (check_params or notebook_params)")
        for t in text:
            if t.startswith('#| export') or t.startswith('#| default_exp'): bad.append(f"{nb.name}: exports code (an experiment notebook runs only the experiment)")
            if re.search(r'^\s*test_(eq|fail|close|ne|is|warns)\(', t, re.M): bad.append(f"{nb.name}: has a test cell ({t[:60]!r}); tests go in the library notebook")
    return not bad, '\n'.join(bad)

def check_layers():
    """The import graph is a DAG in reading order (imports inside functions count; a planted up-layer import is caught),
    `import pe_anchor.vision.models` loads neither pandas nor plotly, and no registry's tuple is spelled out outside core."""
    sys.path.insert(0, str(ROOT / 'scripts')); from layers import check_package, reading_order
    bad = check_package()
    with tempfile.TemporaryDirectory() as d:  # the check must be able to fail: plant models -> paper
        shutil.copytree(ROOT / 'pe_anchor', Path(d) / 'pe_anchor')
        m = Path(d) / 'pe_anchor' / 'vision' / 'models.py'
        m.write_text(m.read_text() + "\ndef _planted():\n    from pe_anchor.engine.paper import reproduce\n")
        planted = check_package(Path(d) / 'pe_anchor', reading_order())
        if not all(any(w in x for x in planted) for w in ('later layer', 'later room', 'cycle')):
            bad.append(f"the layer check missed a planted import (it found {planted})")
    r = sh(sys.executable, '-c', "import sys, pe_anchor.vision.models; print([m for m in ('pandas', 'plotly') if m in sys.modules])")
    if r.stdout.strip() != '[]': bad.append(f"import pe_anchor.vision.models loads {r.stdout.strip()} {r.stderr[-300:]}")
    r = sh(sys.executable, '-c', REGISTRY_LITERALS)
    bad += [l for l in r.stdout.splitlines() if l.strip()] + ([r.stderr[-1000:]] if r.returncode else [])
    return not bad, '\n'.join(bad)

REGISTRY_LITERALS = """
import re, glob
from pe_anchor.base import core
names = 'PE_NAMES TRAIN_PERMUTES OPTIMIZERS SCHEDULES PRECISIONS INITS ROPE_VARIANTS TRAIN_AUGS EXECUTORS'
regs = {n: tuple(getattr(core, n)) for n in names.split()}
regs |= {n: tuple(getattr(core, n)) for n in ('CONDITIONS', 'PERMUTATIONS', 'RPI_ESTIMATORS', 'PE_CONDITIONS', 'CONTROLS')}
for f in sorted(glob.glob('pe_anchor/**/*.py', recursive=True)):
    if f.endswith(('core.py', '_modidx.py')): continue
    s = open(f).read()
    for n, vals in regs.items():
        pat = r'[\\(\\[]\\s*' + r'\\s*,\\s*'.join(re.escape(repr(v)) for v in vals) + r'\\s*,?\\s*[\\)\\]]'
        for m in re.finditer(pat, s): print(f'{f}:{s[:m.start()].count(chr(10)) + 1}: the registry {n} spelled out: {m.group(0)}')
"""

def check_docs():
    "The docs site builds (scripts/build_docs.py, notebooks as committed) and passes scripts/check_docs.py in headless Chromium."
    with tempfile.TemporaryDirectory(prefix='pe_anchor-site-') as d:
        t = time.time()
        b = sh(sys.executable, 'scripts/build_docs.py', '--out', f'{d}/site')
        print(f"  scripts/build_docs.py: {time.time() - t:.0f} s (the run cache of committed results: build/docs-cache)")
        if b.returncode != 0: return False, f"build_docs failed:\n{b.stdout[-4000:]}\n{b.stderr[-4000:]}"
        c = sh(sys.executable, 'scripts/check_docs.py', f'{d}/site')
        return c.returncode == 0, f"{b.stdout.splitlines()[-1]}\n{c.stdout[-6000:]}\n{c.stderr[-2000:]}"

def check_digest():
    """Each committed report's digest states the numbers its glance figure draws, read from the drawn figure in
    headless Chromium (scripts/check_digest.py), and its legend promises only what is drawn."""
    r = sh(sys.executable, 'scripts/check_digest.py')
    return r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]

def check_claims():
    """scripts/check_claims.py passes on the committed studies, and fails on three planted changes in copies: one value
    of claims.csv; a coordinated edit of a merged table, its SHA-256 in the manifest and claims.csv (caught by the
    re-derivation from the parts); a changed threshold in a copy of the pre-registration's block."""
    r = sh(sys.executable, 'scripts/check_claims.py')
    if r.returncode != 0: return False, r.stdout[-4000:] + r.stderr[-2000:]
    with tempfile.TemporaryDirectory(prefix='pe_anchor-claims-') as d:
        cpu = Path(d) / 'cpu'; cpu.mkdir()
        shutil.copytree(ROOT / 'reports' / 'cpu-parts', Path(d) / 'cpu-parts')  # where the manifest says its parts are
        for f in ('manifest.json', 'claims.csv'): shutil.copy(ROOT / 'reports' / 'cpu' / f, cpu / f)
        shutil.copytree(ROOT / 'reports' / 'cpu' / 'tables', cpu / 'tables')
        path = cpu / 'claims.csv'
        rows = list(csv.reader(path.open(encoding='utf-8', newline='')))
        rows[1][rows[0].index('ours')] = '0.123456'  # a planted change in the first part's value
        with path.open('w', encoding='utf-8', newline='') as f: csv.writer(f, lineterminator='\n').writerows(rows)
        planted = sh(sys.executable, 'scripts/check_claims.py', str(cpu))
        shutil.copy(ROOT / 'reports' / 'cpu' / 'claims.csv', path)
        coordinated = sh(sys.executable, '-c', COORDINATED, str(cpu))
        if coordinated.returncode != 0: return False, 'the coordinated edit failed: ' + coordinated.stderr[-2000:]
        edited = sh(sys.executable, 'scripts/check_claims.py', str(cpu))
        block = Path(d) / 'preregistration-cpu.md'
        block.write_text((ROOT / 'data' / 'preregistration-cpu.md').read_text(encoding='utf-8')
                         .replace('"epsilon": 0.05', '"epsilon": 0.04'), encoding='utf-8')
        threshold = sh(sys.executable, 'scripts/check_claims.py', str(cpu), '--prereg', str(block))
    if planted.returncode == 0: return False, "a planted change in claims.csv was not caught"
    if edited.returncode == 0 or 'differ:' not in edited.stdout:
        return False, "a coordinated edit (table, its SHA-256, claims.csv) was not caught:\n" + edited.stdout[-2000:]
    if threshold.returncode == 0 or 'epsilon' not in threshold.stdout:
        return False, "a changed threshold in the pre-registration's block was not caught"
    return True, r.stdout

COORDINATED = """import json, sys
from pathlib import Path
import pandas as pd
from pe_anchor.verdicts.confirm import study_claims
from pe_anchor.base.files import file_sha256
from pe_anchor.engine.plan import committed_tables, read_manifest, read_plan
out = Path(sys.argv[1]); m = read_manifest(out)
f = 'tables/fragility/fragility.csv'; t = pd.read_csv(out / f); t.loc[t.condition == 'rope', 'fs'] += 0.05
t.to_csv(out / f, index=False)
def rehash():
    for u in m['units'].values():
        u['sha256'] = {g: file_sha256(out / g) if (out / g).is_file() else h for g, h in u.get('sha256', {}).items()}
    (out / 'manifest.json').write_text(json.dumps(m, indent=1))
rehash()
tables = {k: v for k, v in committed_tables(out).items() if k != 'claims'}
study_claims(tables, read_plan(out)).to_csv(out / 'claims.csv', index=False)
if (out / 'tables/claims/claims.csv').exists():  # a study merged before the published file was the one copy
    (out / 'tables/claims/claims.csv').write_bytes((out / 'claims.csv').read_bytes())
rehash()
"""

def check_remerge():
    """A merge of the committed parts (the ones reports/cpu's manifest names) into a temporary folder gives
    reports/cpu's claims.csv and every table byte for byte (no report: the tables and the claims;
    `pe_anchor.engine.recheck.remerge_study`)."""
    if not (ROOT / 'reports' / 'cpu' / 'manifest.json').exists(): return True, 'no committed study'
    r = sh(sys.executable, '-c', REMERGE, str(ROOT / 'reports' / 'cpu'))
    return r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]

REMERGE = """import sys
from pe_anchor.engine.recheck import remerge_study
differ = remerge_study(sys.argv[1])
print('reports/cpu/manifest.json names no merged parts' if differ is None else f'differ: {differ[:10]}')
sys.exit(0 if differ == [] else 1)
"""

MAX_MODULE_LINES = 400  # the style guide's limit for one module of the package


def written_lines(text:str) -> int:
    """A module's lines as its notebook's exported cells hold them: nbdev's `# %%` cell markers and the blank line it
    writes before each are not counted (`benchmarks/house.py` reports it beside the lines of the file)."""
    lines = text.splitlines()
    marker = [l.startswith('# %% ') for l in lines]
    return sum(1 for i, l in enumerate(lines) if not marker[i] and not (l == '' and i + 1 < len(lines) and marker[i + 1]))


def check_module_sizes():
    "Every module of the package (the generated `_modidx.py` aside) has at most 400 lines, nbdev's cell markers included."
    long = [f"{p.relative_to(ROOT)}: {n} lines" for p in sorted((ROOT / 'pe_anchor').rglob('*.py'))
            if p.name != '_modidx.py' and (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES]
    return not long, '\n'.join(long)

def check_readme():
    """README.md says the same as nbs/00_index.ipynb; reports/cpu/README.md is in step with the study's files; every
    section's executed copy is in reports/cpu/notebooks/ and names no machine path."""
    r = sh(sys.executable, 'scripts/make_readme.py', '--check')
    if r.returncode != 0: return False, "README.md is out of step with nbs/00_index.ipynb: run python scripts/make_readme.py"
    if not (ROOT / 'reports' / 'cpu' / 'manifest.json').exists(): return True, 'no committed study: its page is not checked'
    for script in ('scripts/study_readme.py', 'scripts/committed_notebooks.py'):
        r = sh(sys.executable, script, '--check')
        if r.returncode != 0: return False, r.stdout[-3000:] + r.stderr[-2000:]
    return True, ''


def run_nbdev_test(flags):
    "Run nbdev_test over nbs/; return the names of the failed notebooks."
    # 2 notebooks at a time, 1 thread each; a run cache of its own, so tests never touch the user's runs
    cache = tempfile.mkdtemp(prefix='pe_anchor-test-cache-')
    env = dict(os.environ, OMP_NUM_THREADS='1', MKL_NUM_THREADS='1', PE_ANCHOR_CACHE=cache)
    r = subprocess.run(['nbdev_test', '--n_workers', '2', '--timing', *(['--flags', flags] if flags else [])], cwd=ROOT, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    shutil.rmtree(cache, ignore_errors=True)  # the folder this run made
    print(r.stdout[-20000:])
    failed = re.findall(r'^\s+(\S+\.ipynb)\s*$', r.stdout.split('Failed On The Following Notebooks:')[-1], re.M) if 'Failed On' in r.stdout else []
    if r.returncode != 0 and not failed: failed = ['nbdev_test']
    return failed

def main():
    flags = ' '.join(sys.argv[1:])
    passed, failed = 0, []
    for check in (check_clean, check_jupyter, check_export, check_parameters, check_readme, check_claims, check_remerge,
                  check_layers, check_module_sizes, check_digest, check_docs):
        t = time.time()
        ok, msg = check()
        print(f"{'PASS' if ok else 'FAIL'} {check.__name__} ({time.time() - t:.0f} s): {check.__doc__}"
              + ('' if ok else f"\n{msg}"), flush=True)
        if ok: passed += 1
        else: failed.append(check.__name__)
    bad = run_nbdev_test(flags)
    names = {nb.name for nb in NBS}
    nb_failed = names if bad == ['nbdev_test'] else set(bad) & names
    for nb in NBS: print(f"{'FAIL' if nb.name in nb_failed else 'PASS'} {nb.relative_to(ROOT / 'nbs')}")
    passed += len(names - nb_failed); failed += sorted(nb_failed)
    print(f"{passed} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)

if __name__ == '__main__': main()
