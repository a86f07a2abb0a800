"""SSDC overhead benchmark: per-layer SSDC (paper mode and per-image mode) vs a plain eval pass, same run, same images.

    python benchmarks/ssdc_bench.py                 # both shapes + memory, prints a markdown table (a few minutes on 2 cores)
    python benchmarks/ssdc_bench.py --shapes cpu    # only the cpu preset shape
    python benchmarks/ssdc_bench.py --memory 10000  # (internal) one memory measurement in a fresh process, prints JSON

Timings interleave plain / paper / image passes (`stream_tokens` with no capture, an `SSDCAccumulator` in paper mode,
and one in image mode) over the same synthetic images (smooth uint8 images, so the
similarities are realistic), `reps` times after one warm-up each, and report medians. Memory streams the model over
1,000 and 10,000 images (plain, paper, image: each in a fresh process) and reads the peak RSS of the pass alone, above
the RSS at its start (Linux: clear_refs 5 + VmHWM), plus the bytes the accumulator holds. The memory processes run with
MALLOC_MMAP_THRESHOLD_=1048576 so that glibc returns freed large blocks at once: with its default dynamic threshold
the peak RSS creeps up by allocator reuse over the first batches (plain passes too), which is not live memory.
"""
import argparse, json, os, platform, statistics, subprocess, sys, time
import torch, torch.nn.functional as F
from pe_anchor.vision.models import create_model
from pe_anchor.metrics.ssdc import SSDCAccumulator
from pe_anchor.metrics.layers import stream_tokens

SHAPES = {  # name -> (preset, ModelConfig overrides, images, batch size, reps)
    'cpu': ('cpu', {}, 2000, 1000, 7),                               # the `cpu` preset as it is now
    'cpu-issue': ('cpu', dict(dim=128, depth=6), 2000, 1000, 7),     # the cpu shape the SSDC issue names
    'paper': ('paper', {}, 64, 32, 5),
}
MEMORY_SHAPE = SHAPES['cpu-issue']

def smooth_images(n, chans, size, seed=0):
    "Smooth random uint8 images (N, C, size, size): neighbouring patches alike, like natural images."
    g = torch.Generator().manual_seed(seed)
    x = F.interpolate(torch.rand(n, chans, 6, 6, generator=g), size=size, mode='bilinear', align_corners=False)
    return (x * 255).round().to(torch.uint8)

def time_shape(name):
    "Median seconds of plain / paper / image passes at one shape, interleaved."
    preset, over, n, bs, reps = SHAPES[name]
    m = create_model('ape', preset, seed=0, **over).eval()
    imgs, mean, std = smooth_images(n, m.cfg.in_chans, m.cfg.img_size), (0.5,) * m.cfg.in_chans, (0.25,) * m.cfg.in_chans
    run = {'plain': lambda: stream_tokens(m, imgs, mean, std, None, batch_size=bs),
           'paper': lambda: stream_tokens(m, imgs, mean, std, SSDCAccumulator(m.grid), batch_size=bs),
           'image': lambda: stream_tokens(m, imgs, mean, std, SSDCAccumulator(m.grid, mode='image'), batch_size=bs)}
    times = {k: [] for k in run}
    for k, f in run.items(): f()  # warm-up
    for _ in range(reps):
        for k, f in run.items():
            t = time.perf_counter(); f(); times[k].append(time.perf_counter() - t)
    med, low = ({k: f(v) for k, v in times.items()} for f in (statistics.median, min))
    c = m.cfg
    return dict(shape=f"{name}: {c.img_size}px/p{c.patch_size} -> {c.grid[0]}x{c.grid[1]}, D{c.dim}, depth {c.depth}",
                images=n, batch=bs, reps=reps, plain_s=med['plain'], paper_s=med['paper'], image_s=med['image'],
                paper_overhead=med['paper'] / med['plain'] - 1, image_overhead=med['image'] / med['plain'] - 1,
                paper_overhead_min=low['paper'] / low['plain'] - 1, image_overhead_min=low['image'] / low['plain'] - 1,
                spread_plain=(max(times['plain']) - min(times['plain'])) / med['plain'])

def rss_kb(field):
    "A VmRSS/VmHWM field of this process, in kB."
    for line in open('/proc/self/status'):
        if line.startswith(field): return int(line.split()[1])

def memory_one(n, mode):
    "Peak extra RSS of one pass over `n` images at the cpu shape (`mode`: plain, paper or image), in this process."
    preset, over = MEMORY_SHAPE[:2]
    m = create_model('ape', preset, seed=0, **over).eval()
    imgs = smooth_images(n, 1, 28)
    acc = None if mode == 'plain' else SSDCAccumulator(m.grid, mode=mode)
    stream_tokens(m, imgs[:1000], (0.5,), (0.25,), None, batch_size=1000)  # warm up the allocator
    open('/proc/self/clear_refs', 'w').write('5')
    base, t = rss_kb('VmRSS'), time.perf_counter()
    stream_tokens(m, imgs, (0.5,), (0.25,), acc, batch_size=1000)
    state = 0 if acc is None else sum(v.nbytes for d in (acc.sums, acc.moments) for v in d.values())
    return dict(images=n, mode=mode, seconds=time.perf_counter() - t, peak_extra_mb=(rss_kb('VmHWM') - base) / 1024,
                state_bytes=state, counted=0 if acc is None else acc.counts[('ln1', 0)], images_mb=imgs.numel() / 2**20)

def memory():
    "Memory rows for 1,000 and 10,000 images, each (images, mode) in a fresh process."
    rows = []
    for n in (1000, 10000):
        for mode in ('plain', 'paper', 'image'):
            r = subprocess.run([sys.executable, __file__, '--memory', str(n), '--mode', mode, '--threads', str(torch.get_num_threads())],
                               capture_output=True, text=True, check=True, env=dict(os.environ, MALLOC_MMAP_THRESHOLD_='1048576'))
            rows.append(json.loads(r.stdout.strip().splitlines()[-1]))
    return rows

def markdown(timing, mem):
    "The README section's tables."
    out = ['| shape | images (batch) | plain pass | + SSDC paper mode, every layer | + per-image mode, every layer |', '|---|---|---|---|---|']
    for r in timing:
        out.append(f"| {r['shape']} | {r['images']} ({r['batch']}) | {r['plain_s']:.2f} s | {r['paper_s']:.2f} s (**{100*r['paper_overhead']:+.1f} %**; "
                   f"min {100*r['paper_overhead_min']:+.1f} %) | {r['image_s']:.2f} s (**{100*r['image_overhead']:+.1f} %**; min {100*r['image_overhead_min']:+.1f} %) |")
    out += ['', '| images (cpu-issue shape, batch 1000) | mode | peak RSS above the start of the pass | accumulator state | images counted |',
            '|---|---|---|---|---|']
    for r in mem:
        out.append(f"| {r['images']:,} | {r['mode']} | {r['peak_extra_mb']:.1f} MiB | {r['state_bytes']:,} B | {r['counted']:,} |")
    return '\n'.join(out)

if __name__ == '__main__':
    p = argparse.ArgumentParser()
    p.add_argument('--shapes', nargs='*', default=list(SHAPES)); p.add_argument('--memory', type=int, default=0)
    p.add_argument('--mode', default='paper')
    p.add_argument('--no-memory', action='store_true'); p.add_argument('--threads', type=int, default=0)
    a = p.parse_args()
    if a.threads: torch.set_num_threads(a.threads)
    if a.memory: print(json.dumps(memory_one(a.memory, a.mode))); sys.exit()
    timing = [time_shape(s) for s in a.shapes]
    mem = [] if a.no_memory else memory()
    print(json.dumps(dict(timing=timing, memory=mem), indent=1))
    print(f"\ntorch {torch.__version__}, {torch.get_num_threads()} threads, {platform.processor() or platform.machine()}, load avg {os.getloadavg()[0]:.1f}\n")
    print(markdown(timing, mem))
