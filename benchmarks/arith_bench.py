"""Cheaper arithmetic on the CPU, measured before adopted: training-step throughput of the `cpu` preset's model
(one thread, interleaved in one process) in fp32 eager (the default), bf16 autocast, torch.compile, and SDPA's
kernels; plus the core's matrix-product rate in fp32 and bf16 and the training FLOP/s as a share of it.

    python benchmarks/arith_bench.py [--steps 30] [--repeats 3] [--depth 4] [--out benchmarks/arith_bench.csv]

`--depth 8` or `--depth 12` measures the `cpu-deep` ladder's model (the `cpu` model at that depth).

The CPU's bf16 instructions (AVX-512 BF16, AMX) are detected from /proc/cpuinfo (`pe_anchor.base.machine.cpu_summary`),
never assumed; without them the bf16 rows say so. Nothing here changes the project's default numerics: an option is
adopted only if it is measured faster, and then only as an option.
"""
import argparse, os, time
from contextlib import nullcontext
from pathlib import Path
import pandas as pd
import torch, torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

ROOT = Path(__file__).resolve().parent.parent

def step_fn(model, x, y, opt, ctx):
    "One training step (forward, loss, backward, AdamW) under the autocast context `ctx`."
    def step():
        with ctx(): loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True); loss.backward(); opt.step()
    return step

def median_time(step, n:int) -> float:
    "Median seconds of `step` over `n` calls, after 3 warm-up calls."
    for _ in range(3): step()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter(); step(); ts.append(time.perf_counter() - t0)
    return sorted(ts)[len(ts) // 2]

def step_flops(model, x, y) -> int:
    "FLOPs of one training step (forward and backward), counted by torch."
    with FlopCounterMode(display=False) as fc:
        F.cross_entropy(model(x), y).backward()
    model.zero_grad(set_to_none=True)
    return fc.get_total_flops()

def mm_rate(dtype, n:int=20) -> float:
    "GFLOP/s of the model's largest matrix products (tokens x D by D x 3D) on one thread."
    a, b = torch.randn(64 * 50, 64, dtype=dtype), torch.randn(64, 192, dtype=dtype)
    c, d = torch.randn(64 * 50, 128, dtype=dtype), torch.randn(128, 64, dtype=dtype)
    t = median_time(lambda: (a @ b, c @ d), n)
    return 2 * (64 * 50 * 64 * 192 + 64 * 50 * 128 * 64) / t / 1e9

def variants(depth:int=4):
    "name -> (model builder, autocast context factory) of the `cpu` model at `depth`."
    from pe_anchor.vision.models import create_model
    bf16 = lambda: torch.autocast('cpu', dtype=torch.bfloat16)
    eager = lambda pe: create_model(pe, 'cpu', depth=depth)
    compiled = lambda pe: torch.compile(eager(pe))
    return {'fp32 eager (default)': (eager, nullcontext),
            'bf16 autocast': (eager, bf16),
            'fp32 torch.compile': (compiled, nullcontext),
            'bf16 autocast + torch.compile': (compiled, bf16)}

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--steps', type=int, default=30); ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--depth', type=int, default=4)
    ap.add_argument('--out', default=str(ROOT / 'benchmarks' / 'arith_bench.csv'))
    a = ap.parse_args(); torch.set_num_threads(1)
    from pe_anchor.base.machine import cpu_summary
    cpu = cpu_summary(); has_bf16 = bool({'avx512_bf16', 'amx_bf16'} & set(cpu['flags']))
    print(f"torch {torch.__version__}, 1 thread, {cpu['model']}, capability {cpu['capability']}, flags {cpu['flags']}, "
          f"load {os.getloadavg()[0]:.2f}")
    x, y = torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,))
    rows, models = [], {}
    for name, (build, ctx) in variants(a.depth).items():
        for pe in ('ape', 'rope'):
            torch.manual_seed(0); m = build(pe)
            models[name, pe] = (step_fn(m, x, y, torch.optim.AdamW(m.parameters(), lr=1e-4), ctx))
    flops = {pe: step_flops(variants(a.depth)['fp32 eager (default)'][0](pe), x, y) for pe in ('ape', 'rope')}
    for rep in range(a.repeats):  # interleaved: load changes hit every variant alike
        for (name, pe), step in models.items():
            try: t = median_time(step, a.steps); err = ''
            except Exception as e: t, err = float('nan'), f'{type(e).__name__}: {str(e)[:80]}'
            rows.append(dict(variant=name, pe=pe, repeat=rep, img_per_s=64 / t, gflop_s=flops[pe] / t / 1e9,
                             error=err, bf16_instructions=has_bf16))
    mm32, mm16 = mm_rate(torch.float32), mm_rate(torch.bfloat16)
    df = pd.DataFrame(rows).groupby(['variant', 'pe', 'bf16_instructions'], sort=False).agg(
        img_per_s=('img_per_s', 'median'), gflop_s=('gflop_s', 'median'), error=('error', 'first')).reset_index()
    base = df[df.variant == 'fp32 eager (default)'].set_index('pe').img_per_s
    df['vs_default'] = (df.img_per_s / df.pe.map(base)).round(2)
    df['share_of_fp32_matmul'] = (df.gflop_s / mm32).round(2)
    df.assign(depth=a.depth, matmul_fp32_gflop_s=round(mm32, 1), matmul_bf16_gflop_s=round(mm16, 1),
              load=round(os.getloadavg()[0], 2)).to_csv(a.out, index=False)
    print(df.round(1).to_markdown(index=False))
    print(f"matrix products of the model's shapes, one thread: fp32 {mm32:.1f} GFLOP/s, bf16 {mm16:.1f} GFLOP/s")

if __name__ == '__main__': main()
