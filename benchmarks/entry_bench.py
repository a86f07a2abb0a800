"""Time every way a user starts the study, as the user starts it, from an empty run cache and out-dir (smoke preset).

    python benchmarks/entry_bench.py [--repeats N] [--only TEXT] [--out benchmarks/entry_bench.csv]

Each case is one command in a fresh temporary folder (its own `PE_ANCHOR_CACHE` and out-dir): its wall seconds, the
CPU seconds of everything it started (user + system, from `getrusage` of the children), whether it succeeded as
expected, and the 1-minute load average just before it (a load near 0 means an idle machine; the table keeps it).
The cases: the whole smoke reproduction from the command line (report included); a section notebook under papermill
with the documented parameter, with the old spelling, and with a typo (which must fail fast, in one line); and the
same notebook without its committed-study section (`-p committed ''`). Rows of cases not run (`--only`) are kept.
For each executed notebook, papermill's own per-cell durations go to `entry_bench_cells.csv` (one row per code cell:
the case, the repeat, the cell's index and first line, its seconds); the rest of the wall time is the kernel's start
and papermill itself.
"""
import argparse, json, os, resource, subprocess, sys, tempfile, time
from pathlib import Path
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
NB = str(ROOT / 'nbs' / '05_fragility.ipynb')
CASES = [  # (name, command with {d} for the case's folder, expected to succeed)
    ('pe-anchor-paper --preset smoke', ['pe-anchor-paper', '--preset', 'smoke', '--out-dir', '{d}/out', '--quiet'], True),
    ('papermill 05_fragility -p conditions rope', ['papermill', NB, '{d}/out.ipynb', '-p', 'conditions', 'rope',
                                                  '-p', 'out_dir', '{d}/out'], True),
    ('papermill 05_fragility -p pe rope (old spelling)', ['papermill', NB, '{d}/out.ipynb', '-p', 'pe', 'rope',
                                                         '-p', 'out_dir', '{d}/out'], True),
    ("papermill 05_fragility -p conditions rope -p committed ''", ['papermill', NB, '{d}/out.ipynb', '-p', 'conditions',
                                                                   'rope', '-p', 'committed', '', '-p', 'out_dir',
                                                                   '{d}/out'], True),
    ('papermill 05_fragility -p conditions rop (typo)', ['papermill', NB, '{d}/out.ipynb', '-p', 'conditions', 'rop',
                                                        '-p', 'out_dir', '{d}/out'], False),
]


def children_cpu() -> float:
    "CPU seconds (user + system) of every finished child process so far."
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cell_seconds(path:Path) -> list:
    "One row per code cell of an executed notebook: its index, first line and papermill's duration (seconds)."
    if not path.exists(): return []
    cells = json.loads(path.read_text(encoding='utf-8'))['cells']
    return [dict(cell=i, first_line=''.join(c['source']).split('\n')[0][:80],
                 seconds=round(c.get('metadata', {}).get('papermill', {}).get('duration') or 0.0, 2))
            for i, c in enumerate(cells) if c['cell_type'] == 'code']


def keep_rows(new:pd.DataFrame, path:str):
    "Write `new` to the CSV `path`, keeping the rows of the cases `new` does not hold."
    old = pd.read_csv(path) if Path(path).exists() else pd.DataFrame(columns=new.columns)
    kept = old[~old.case.isin(set(new.case))] if len(old) else old
    pd.concat([kept, new], ignore_index=True).to_csv(path, index=False)


def run_case(cmd:list, work:Path) -> dict:
    "Run one command in `work` with its own run cache; time it."
    env = dict(os.environ, PE_ANCHOR_CACHE=str(work / 'runs'))
    load, cpu0, t0 = os.getloadavg()[0], children_cpu(), time.time()
    r = subprocess.run([c.format(d=work) for c in cmd], cwd=work, env=env, capture_output=True, text=True)
    last = (r.stderr.strip().splitlines() or [''])[-1][:200]
    return dict(load_before=round(load, 2), seconds=round(time.time() - t0, 1),
                cpu_seconds=round(children_cpu() - cpu0, 1), rc=r.returncode, last_error_line=last if r.returncode else '')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--repeats', type=int, default=1)
    ap.add_argument('--only', default='', help='run only the cases whose name contains this text')
    ap.add_argument('--out', default=str(ROOT / 'benchmarks' / 'entry_bench.csv'))
    a = ap.parse_args()
    rows, cells = [], []
    for name, cmd, ok in CASES:
        if a.only not in name: continue
        for i in range(a.repeats):
            with tempfile.TemporaryDirectory(prefix='pe_anchor-entry-') as d:
                row = dict(case=name, repeat=i, expected_ok=ok, **run_case(cmd, Path(d)),
                           date=time.strftime('%Y-%m-%d'))
                cells += [dict(case=name, repeat=i, **c) for c in cell_seconds(Path(d) / 'out.ipynb')]
            row['as_expected'] = (row['rc'] == 0) == ok
            print(row, flush=True)
            rows.append(row)
    keep_rows(pd.DataFrame(rows), a.out)
    if cells: keep_rows(pd.DataFrame(cells), str(Path(a.out).with_name(Path(a.out).stem + '_cells.csv')))
    sys.exit(0 if all(r['as_expected'] for r in rows) else 1)


if __name__ == '__main__': main()
