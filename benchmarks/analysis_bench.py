"""Time each analysis's per-run task on one cached run of a committed part, as the engine's queue runs it.

    python benchmarks/analysis_bench.py                                  # ape seed 100, every analysis, once
    python benchmarks/analysis_bench.py --run none-cpu-s100-0d5922ee9918 --reps 2
    PYTHONPATH=/tmp/old python benchmarks/analysis_bench.py --label old   # the code before a change (see below)
    python benchmarks/analysis_bench.py --label new --old old              # ratios to the rows labelled 'old'

Each task is `pe_anchor.analyses.units.per_run_tables(analysis, run, study, ...)`: what `pe_anchor.engine.parts.result_task` computes,
without writing the tables. The study is the committed part's (`--part`, its `manifest.json`); an analysis that
`needs` another's per-run result of the run (scaling, emergence) is given the committed part's stored tables of it,
as the queue gives it the stored result. The run comes from the run cache (`--cache`, default the package's); the
corrupted test sets from the cache's `corrupted/` (built there first if missing: run once before timing). One
thread, as the queue's workers run. `cpu_s` is the process's CPU time (user + system) of the task and `page_faults`
its minor page faults; `wall_s` its wall time; `load1` the 1-minute load average before the task (with 2 cores, about
1 means the machine was otherwise idle). Rows are appended to `benchmarks/analysis_bench.csv` (`--out`), with `old_s`
and `ratio` (cpu_s / old_s) where `--old` gives a figure for the analysis: CPU seconds as 'fragility=150,scaling=146',
or a label of earlier rows of the CSV for the same run (their median). To time other code on the same run, put its
package first on the path (the `code` column records which package was timed), e.g.
`git archive HEAD~1 pe_anchor | tar -x -C /tmp/old`.
"""
import argparse, json, os, resource, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANALYSES = ('fragility', 'scaling', 'emergence', 'interventions')

def usage() -> tuple:
    "User and system CPU seconds and minor page faults of this process so far."
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime, r.ru_stime, r.ru_minflt

def parse_old(text:str, csv:Path, run:str) -> dict:
    "{analysis: seconds} from 'fragility=150,scaling=146', or the median `cpu_s` of the rows of `csv` labelled `text`."
    if text and '=' not in text:
        import pandas as pd
        rows = pd.read_csv(csv) if csv.exists() else pd.DataFrame(columns=['label', 'run', 'analysis', 'cpu_s'])
        rows = rows[(rows.label.astype(str) == text) & (rows.run == run)]
        if rows.empty: sys.exit(f"--old: no rows labelled {text!r} for run {run} in {csv}")
        return rows.groupby('analysis').cpu_s.median().to_dict()
    out = {}
    for item in filter(None, (t.strip() for t in text.split(','))):
        name, _, sec = item.partition('=')
        if name not in ANALYSES: sys.exit(f"--old: unknown analysis {name!r}; valid: {', '.join(ANALYSES)}")
        out[name] = float(sec)
    return out

def commit() -> str:
    "The git commit of the code, with '+dirty' when the tree has changes."
    git = lambda *a: subprocess.run(['git', *a], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return git('rev-parse', '--short', 'HEAD') + ('+dirty' if git('status', '--porcelain', '--', 'nbs', 'pe_anchor')
                                                   else '')

def time_task(name:str, run, study, part:Path, corrupted:Path) -> dict:
    "CPU and wall seconds of one per-run task, the committed part's stored tables given for what it needs."
    from pe_anchor.engine.parts import stored_tables
    from pe_anchor.analyses.units import get_analysis, per_run_tables
    a = get_analysis(name)
    inputs = {n: stored_tables(part, n, run.dir.name) for n in a.needs}
    load, u0, t0 = os.getloadavg()[0], usage(), time.time()
    tables = per_run_tables(a, run, study, corrupted, None, inputs)
    (user, sys_, faults), wall = (b - a for a, b in zip(u0, usage())), time.time() - t0
    return dict(cpu_s=round(user + sys_, 2), user_s=round(user, 2), sys_s=round(sys_, 2), page_faults=faults,
                wall_s=round(wall, 2), load1=round(load, 2), tables=len(tables))

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--run', default='ape-cpu-s100-da78c072b090', help='a run folder name in the run cache')
    ap.add_argument('--part', default=str(ROOT / 'reports/cpu-parts/seed-100'), help='the committed part of the run')
    ap.add_argument('--cache', default=None, help='the run cache (default: the package default)')
    ap.add_argument('--analyses', default=','.join(ANALYSES), help='comma list (default: all four)')
    ap.add_argument('--reps', type=int, default=1, help='repetitions of each task (interleaved)')
    ap.add_argument('--old', default='',
                    help="CPU seconds measured before ('fragility=150,scaling=146'), or a --label of earlier rows")
    ap.add_argument('--label', default='', help='a note for the rows (e.g. "idle", "before")')
    ap.add_argument('--out', default=str(Path(__file__).with_suffix('.csv')), help='CSV to append to ("" = none)')
    a = ap.parse_args()
    import pandas as pd, torch
    from pe_anchor.runs.cache import Run, default_cache_root
    from pe_anchor.analyses.fragility import corrupted_dir
    from pe_anchor.analyses.study import study_from_dict
    from pe_anchor.analyses.units import get_analysis
    import pe_anchor
    torch.set_num_threads(1)
    code = str(Path(pe_anchor.__file__).parent.parent)  # the package timed (PYTHONPATH may name another checkout)
    names, old = [n.strip() for n in a.analyses.split(',') if n.strip()], parse_old(a.old, Path(a.out), a.run)
    bad = [n for n in names if n not in ANALYSES]
    if bad: sys.exit(f"--analyses: unknown {bad}; valid: {', '.join(ANALYSES)}")
    part, cache = Path(a.part), Path(a.cache) if a.cache else default_cache_root()
    study = study_from_dict(json.loads((part / 'manifest.json').read_text())['plan']['study'])
    run = Run(cache / a.run)
    key = (run.config.condition, run.config.train.seed)
    names = [n for n in names if key in get_analysis(n).keys(study)]  # scaling: swept conditions only
    rows = []
    for rep in range(a.reps):
        for n in names:
            r = dict(analysis=n, run=a.run, rep=rep, **time_task(n, run, study, part, corrupted_dir(cache)))
            r |= dict(old_s=old.get(n), ratio=round(r['cpu_s'] / old[n], 3) if n in old else None,
                      commit=commit() if code == str(ROOT) else '',
                      code='working tree' if code == str(ROOT) else 'other checkout', label=a.label,
                      date=time.strftime('%Y-%m-%d %H:%M'))
            rows.append(r); print(json.dumps(r), flush=True)
    df = pd.DataFrame(rows)
    print(df.groupby('analysis', sort=False)[['cpu_s', 'wall_s', 'load1']].median().to_string())
    if a.out:
        out = Path(a.out)
        df.to_csv(out, mode='a', header=not out.exists(), index=False)
        print(f"appended {len(df)} rows to {out}")

if __name__ == '__main__': main()
