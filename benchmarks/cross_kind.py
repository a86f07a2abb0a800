"""How far a Live recomputation of a committed number moves when the CPU's kernels change: each committed number the
Live cells and `lib/20a_live` recompute, measured again under other kernel paths of this machine, against the
committed value.

    python benchmarks/cross_kind.py [--out benchmarks/cross_kind.csv]

A second CPU kind (an Intel Xeon beside the study's AMD EPYC, say) runs other vector kernels (ATen's dispatch by CPU
capability), another MKL code path (MKL picks its kernels by vendor and instruction set) and another thread count.
Each of these is selected here by its documented switch, one kernel set a subprocess:
`ATEN_CPU_CAPABILITY` (default / avx2 / avx512), `MKL_ENABLE_INSTRUCTIONS` with `ONEDNN_MAX_CPU_ISA`, `MKL_CBWR`
and `torch.set_num_threads`. The largest difference per quantity, over every kernel set, sets
`pe_anchor.analyses.live.LIVE_TOL` (with the margin stated there); a run on a real second kind is added as rows of its own.
"""
import argparse, json, os, subprocess, sys
from pathlib import Path
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
KERNEL_SETS = {  # name -> environment (and threads) of one subprocess
    'native, 1 thread': dict(threads=1),
    'native, 2 threads': dict(threads=2),
    'native, 4 threads': dict(threads=4),
    'ATen default (no vector ISA)': dict(threads=1, ATEN_CPU_CAPABILITY='default'),
    'ATen avx2': dict(threads=1, ATEN_CPU_CAPABILITY='avx2'),
    'MKL and oneDNN avx2': dict(threads=1, MKL_ENABLE_INSTRUCTIONS='AVX2', ONEDNN_MAX_CPU_ISA='AVX2'),
    'MKL compatible': dict(threads=1, MKL_CBWR='COMPATIBLE'),
    'all avx2, 3 threads': dict(threads=3, ATEN_CPU_CAPABILITY='avx2', MKL_ENABLE_INSTRUCTIONS='AVX2',
                                ONEDNN_MAX_CPU_ISA='AVX2'),
}

def measure() -> list:
    "Every Live quantity: (quantity, run, key, committed, live), in this process's kernels."
    import torch
    from pe_anchor.analyses.live import (committed_run, committed_result, live_profile, live_accuracy, live_jpeg, against,
                                LIVE_CHECKS)
    rows = []
    for quantity, condition, seed in LIVE_CHECKS:
        run = committed_run(condition, seed)
        t = live_check(quantity, run)
        for key, r in t.iterrows():
            rows.append(dict(quantity=quantity, run=run.name, key=str(key), committed=r.iloc[0], live=r.iloc[1],
                             difference=r.difference))
    return rows

def live_check(quantity, run):
    "One Live quantity of `run` against its committed rows (`pe_anchor.analyses.live.recompute`)."
    from pe_anchor.analyses.live import recompute
    return recompute(run, quantity)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', default=str(ROOT / 'benchmarks' / 'cross_kind.csv'))
    ap.add_argument('--worker', default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        import torch
        torch.set_num_threads(KERNEL_SETS[a.worker]['threads'])
        from pe_anchor.base.machine import cpu_summary
        cap = torch.backends.cpu.get_cpu_capability()
        print(json.dumps(dict(capability=cap, cpu=cpu_summary()['model'], rows=measure())))
        return
    rows = []
    for name, env in KERNEL_SETS.items():
        e = dict(os.environ, **{k: v for k, v in env.items() if k != 'threads'})
        r = subprocess.run([sys.executable, __file__, '--worker', name], env=e, capture_output=True, text=True)
        if r.returncode: sys.exit(f"{name}: {r.stderr[-2000:]}")
        out = json.loads(r.stdout.strip().splitlines()[-1])
        rows += [dict(kernels=name, aten_capability=out['capability'], cpu=out['cpu'], **x) for x in out['rows']]
        print(name, out['capability'], max(abs(x['difference']) for x in out['rows']), flush=True)
    df = pd.DataFrame(rows)
    df.to_csv(a.out, index=False)
    s = df.assign(abs_difference=df.difference.abs()).groupby(['quantity', 'kernels']).abs_difference.max().unstack(0)
    print(s.to_markdown())

if __name__ == '__main__': main()
