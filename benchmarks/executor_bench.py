"""Training throughput of the run grid, end to end (data, per-epoch evaluation and SSDC log, checkpoints included):
one single-thread process, today's way (one process, 2 threads), and the pool of single-thread workers, idle or with
one other busy process on the machine.

    python benchmarks/executor_bench.py [--runs 4] [--subset 12000] [--busy] [--out benchmarks/executor_bench.csv]

Each setting trains the same grid of `cpu`-preset runs (APE and RoPE, seeds 0..runs/2-1), shortened to one epoch on
`subset` training images so that a setting takes about a minute, into an empty temporary cache, and reports images
trained per second of wall time (training images x epochs / wall). `--busy` starts one CPU-bound process (a
single-thread matrix-product loop) for the duration. The table records the load average before each setting.
"""
import argparse, os, subprocess, sys, tempfile, time
from pathlib import Path
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
BUSY = "import torch; torch.set_num_threads(1); a = torch.randn(512, 512)\nwhile True: a = (a @ a).tanh()"
SETTINGS = {  # name -> (threads per run, workers)
    'one process, 1 thread': (1, 1),
    "one process, 2 threads (the previous way)": (2, 1),
    'pool of 2 single-thread workers': (1, 2),
}

def grid(runs:int, subset:int, threads:int) -> list:
    "The benchmark's run configs: APE and RoPE, seeds 0.., one epoch on `subset` images."
    from pe_anchor.base.config import make_config
    return [make_config(c, 'cpu', seed=s, epochs=1, subset=subset, threads=threads)
            for s in range(runs // 2) for c in ('ape', 'rope')]

def measure(runs:int, subset:int, threads:int, workers:int) -> dict:
    "Train the grid into an empty cache; wall seconds and training images per second."
    from pe_anchor.runs.executor import train_all, make_executor
    configs = grid(runs, subset, threads)
    with tempfile.TemporaryDirectory(prefix='pe_anchor-exbench-') as d:
        t0 = time.time()
        train_all(configs, d, make_executor(workers=workers), progress=False)
        wall = time.time() - t0
    return dict(wall_s=round(wall, 1), img_per_s=round(len(configs) * subset / wall))

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--runs', type=int, default=4); ap.add_argument('--subset', type=int, default=12000)
    ap.add_argument('--busy', action='store_true'); ap.add_argument('--repeats', type=int, default=1)
    ap.add_argument('--out', default=str(ROOT / 'benchmarks' / 'executor_bench.csv'))
    a = ap.parse_args()
    busy = subprocess.Popen([sys.executable, '-c', BUSY]) if a.busy else None
    rows = []
    try:
        if busy: time.sleep(3)
        for rep in range(a.repeats):
            for name, (threads, workers) in SETTINGS.items():
                load = os.getloadavg()[0]
                rows.append(dict(setting=name, threads=threads, workers=workers, busy=a.busy, repeat=rep,
                                 load_before=round(load, 2), **measure(a.runs, a.subset, threads, workers)))
                print(rows[-1], flush=True)
    finally:
        if busy: busy.kill()
    df = pd.DataFrame(rows)
    base = df[df.setting == 'one process, 1 thread'].img_per_s.mean()
    prev = df[df.threads == 2].img_per_s.mean()
    df['vs_one_worker'], df['vs_previous_way'] = (df.img_per_s / base).round(2), (df.img_per_s / prev).round(2)
    old = pd.read_csv(a.out) if Path(a.out).exists() else pd.DataFrame()
    keep = old[old.busy != a.busy] if len(old) else old
    pd.concat([keep, df], ignore_index=True).to_csv(a.out, index=False)
    print(df.to_markdown(index=False))

if __name__ == '__main__': main()
