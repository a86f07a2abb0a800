"""Time the experiment notebooks as a user runs them with papermill, from an empty run cache.

    python benchmarks/papermill_bench.py [--repeats N] [--busy] [--only TEXT] [--out benchmarks/papermill_bench.csv]

For each case: the wall time of the `papermill` command (kernel start included), whether it succeeded, and for the
executed notebook the number of cells that called a test function (`test_eq`, `test_fail`, ...: must be 0, the
experiment notebooks run only the experiment). The typo case passes a misspelled parameter and must fail fast,
naming the valid parameters. Run it with nothing else on the machine; the table says the load average it saw.
`--busy` starts one CPU-bound single-thread process for the duration (a shared machine); the table keeps the rows of
the other load state and of the cases not run (`--only`).
"""
import argparse, json, os, re, subprocess, sys, tempfile, time
from pathlib import Path
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
CASES = [  # (name, notebook, papermill parameters, should succeed)
    ('05_fragility -p pe rope', '05_fragility', ['-p', 'pe', 'rope'], True),
    ('05_fragility -p pe_typo rope (typo)', '05_fragility', ['-p', 'pe_typo', 'rope'], False),
    ('05_fragility -p pe ropee (bad value)', '05_fragility', ['-p', 'pe', 'ropee'], False),
    ('floor: papermill, a parameters cell and a raise', 'floor', ['-p', 'pe', 'ropee'], False),
    ('06_scaling -p pe rope', '06_scaling', ['-p', 'pe', 'rope'], True),
    ('03_ssdc (defaults)', '03_ssdc', [], True),
    ('09_timm (defaults)', '09_timm', [], True),
]
BUSY = "import torch; torch.set_num_threads(1); a = torch.randn(512, 512)\nwhile True: a = (a @ a).tanh()"
TEST_CALL = re.compile(r'^\s*test_(eq|fail|close|ne|is|warns)\(', re.M)


FLOOR = {'cells': [{'cell_type': 'code', 'execution_count': None, 'id': 'p', 'metadata': {'tags': ['parameters']},
                    'outputs': [], 'source': "pe = 'ape'\nout_dir = ''"},
                   {'cell_type': 'code', 'execution_count': None, 'id': 'r', 'metadata': {}, 'outputs': [],
                    'source': "raise ValueError(f'Notebook parameter pe: got {pe!r}')"}],
         'metadata': {'kernelspec': {'display_name': 'Python 3', 'language': 'python', 'name': 'python3'}},
         'nbformat': 4, 'nbformat_minor': 5}  # the least a papermill run that checks a parameter can do


def notebook_path(notebook:str, work:Path) -> Path:
    "The section notebook, or (`floor`) the floor notebook written into `work`."
    if notebook != 'floor': return ROOT / 'nbs' / f'{notebook}.ipynb'
    (work / 'floor.ipynb').write_text(json.dumps(FLOOR))
    return work / 'floor.ipynb'


def run_case(notebook:str, params:list, work:Path) -> dict:
    "Run one papermill command from an empty run cache; time it and read back the executed notebook."
    out = work / f'{notebook}-out.ipynb'
    env = dict(os.environ, PE_ANCHOR_CACHE=str(work / 'runs'))
    src = notebook_path(notebook, work)
    t0 = time.time()
    cmd = ['papermill', str(src), str(out), *params, '-p', 'out_dir', str(work / 'out')]
    r = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
    seconds = time.time() - t0
    cells = json.loads(out.read_text())['cells'] if out.exists() else []
    ran = [c for c in cells if c['cell_type'] == 'code' and c.get('execution_count')]
    tests = sum(bool(TEST_CALL.search(''.join(c['source']))) for c in ran)
    valid_named = 'valid' in r.stderr.lower() or 'valid' in json.dumps(cells).lower() or "'none', 'ape'" in r.stderr
    return dict(seconds=round(seconds, 1), ok=r.returncode == 0, cells_run=len(ran), test_cells_run=tests,
                error_names_valid=valid_named if r.returncode else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--repeats', type=int, default=1)
    ap.add_argument('--out', default=str(ROOT / 'benchmarks' / 'papermill_bench.csv'))
    ap.add_argument('--busy', action='store_true')
    ap.add_argument('--only', default='', help='run only the cases whose name contains this text')
    args = ap.parse_args()
    busy = subprocess.Popen([sys.executable, '-c', BUSY]) if args.busy else None
    rows = []
    try:
        if busy: time.sleep(3)
        for name, nb, params, should in [c for c in CASES if args.only in c[0]]:
            for rep in range(args.repeats):
                with tempfile.TemporaryDirectory(prefix='pe_anchor-pm-') as d:
                    load = os.getloadavg()[0]
                    row = dict(case=name, repeat=rep, busy=args.busy, expected_ok=should, load_before=round(load, 2),
                               **run_case(nb, params, Path(d)))
                rows.append(row)
                print(row, flush=True)
    finally:
        if busy: busy.kill()
    df = pd.DataFrame(rows)
    old = pd.read_csv(args.out) if Path(args.out).exists() else pd.DataFrame()
    keep = old[(old.busy != args.busy) | ~old.case.isin(df.case)] if 'busy' in old else pd.DataFrame()
    pd.concat([keep, df], ignore_index=True).to_csv(args.out, index=False)
    print(df.to_string(index=False))
    bad = df[(df.ok != df.expected_ok) | (df.test_cells_run > 0)]
    sys.exit(1 if len(bad) else 0)


if __name__ == '__main__': main()
