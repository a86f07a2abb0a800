"""SSDC overhead benchmark: per-layer SSDC (paper mode and per-image mode) vs a plain eval pass, same run, same images.

    python benchmarks/ssdc_bench.py                 # both shapes + memory, prints a markdown table (a few minutes on 2 cores)
    python benchmarks/ssdc_bench.py --shapes cpu    # only the cpu preset shape
    python benchmarks/ssdc_bench.py --memory 10000  # (internal) one memory measurement in a fresh process, prints JSON

Timings interleave plain / paper / image passes over the same synthetic images (smooth uint8 images, so the
similarities are realistic), `reps` times after one warm-up each, and report medians. Memory runs `layer_ssdc` over
1,000 and 10,000 images in fresh processes and reads the peak RSS of the call alone (Linux: clear_refs 5 + VmHWM).
"""
import argparse, json, os, platform, statistics, subprocess, sys, time
import torch, torch.nn.functional as F
from pe_anchor.models import create_model
from pe_anchor.ssdc import SSDCAccumulator, stream_tokens, layer_ssdc

SHAPES = {  # name -> (preset, images, batch size, reps)
    'cpu': ('cpu', 2000, 1000, 5),
    'paper': ('paper', 64, 32, 3),
}

def smooth_images(n, chans, size, seed=0):
    "Smooth random uint8 images (N, C, size, size): neighbouring patches alike, like natural images."
    g = torch.Generator().manual_seed(seed)
    x = F.interpolate(torch.rand(n, chans, 6, 6, generator=g), size=size, mode='bilinear', align_corners=False)
    return (x * 255).round().to(torch.uint8)

def time_shape(name):
    "Median seconds of plain / paper / image passes at one shape, interleaved."
    preset, n, bs, reps = SHAPES[name]
    m = create_model('ape', preset, seed=0).eval()
    imgs, mean, std = smooth_images(n, m.cfg.in_chans, m.cfg.img_size), (0.5,) * m.cfg.in_chans, (0.25,) * m.cfg.in_chans
    run = {'plain': lambda: stream_tokens(m, imgs, mean, std, None, batch_size=bs),
           'paper': lambda: stream_tokens(m, imgs, mean, std, SSDCAccumulator(m.grid), batch_size=bs),
           'image': lambda: stream_tokens(m, imgs, mean, std, SSDCAccumulator(m.grid, mode='image'), batch_size=bs)}
    times = {k: [] for k in run}
    for k, f in run.items(): f()  # warm-up
    for _ in range(reps):
        for k, f in run.items():
            t = time.perf_counter(); f(); times[k].append(time.perf_counter() - t)
    med = {k: statistics.median(v) for k, v in times.items()}
    c = m.cfg
    return dict(shape=f"{name}: {c.img_size}px/p{c.patch_size} -> {c.grid[0]}x{c.grid[1]}, D{c.dim}, depth {c.depth}",
                images=n, batch=bs, reps=reps, plain_s=med['plain'], paper_s=med['paper'], image_s=med['image'],
                paper_overhead=med['paper'] / med['plain'] - 1, image_overhead=med['image'] / med['plain'] - 1,
                spread_plain=(max(times['plain']) - min(times['plain'])) / med['plain'])

def rss_kb(field):
    "A VmRSS/VmHWM field of this process, in kB."
    for line in open('/proc/self/status'):
        if line.startswith(field): return int(line.split()[1])

def memory_one(n):
    "Peak extra RSS of `layer_ssdc` (both modes) over `n` images at the cpu shape, in this process."
    m = create_model('ape', 'cpu', seed=0)
    data = (smooth_images(n, 1, 28), None, (0.5,), (0.25,))
    out = dict(images=n, images_mb=data[0].numel() / 2**20)
    for mode in ('paper', 'image'):
        layer_ssdc(m, (data[0][:1000],) + data[1:], batch_size=1000, mode=mode)  # warm the allocator
        open('/proc/self/clear_refs', 'w').write('5')
        base, t = rss_kb('VmRSS'), time.perf_counter()
        acc = SSDCAccumulator(m.grid, mode=mode)
        stream_tokens(m, data[0], data[2], data[3], acc, batch_size=1000)
        out[f'{mode}_s'] = time.perf_counter() - t
        out[f'{mode}_peak_extra_mb'] = (rss_kb('VmHWM') - base) / 1024
        out[f'{mode}_state_bytes'] = sum(v.nbytes for v in acc.sums.values()) + sum(v.nbytes for v in acc.moments.values())
        out[f'{mode}_n_counted'] = acc.counts[('ln1', 0)]
    return out

def memory():
    "Memory rows for 1,000 and 10,000 images, each in a fresh process."
    rows = []
    for n in (1000, 10000):
        r = subprocess.run([sys.executable, __file__, '--memory', str(n)], capture_output=True, text=True, check=True)
        rows.append(json.loads(r.stdout.strip().splitlines()[-1]))
    return rows

def markdown(timing, mem):
    "The README section's tables."
    out = ['| shape | images (batch) | plain pass | + SSDC paper mode, all layers | + per-image mode, all layers |', '|---|---|---|---|---|']
    for r in timing:
        out.append(f"| {r['shape']} | {r['images']} ({r['batch']}) | {r['plain_s']:.2f} s | {r['paper_s']:.2f} s (**{100*r['paper_overhead']:+.1f} %**) "
                   f"| {r['image_s']:.2f} s (**{100*r['image_overhead']:+.1f} %**) |")
    out += ['', '| images (cpu shape) | uint8 images held | paper: peak extra RSS | paper: accumulator state | image: peak extra RSS | image: accumulator state |',
            '|---|---|---|---|---|---|']
    for r in mem:
        out.append(f"| {r['images']:,} | {r['images_mb']:.1f} MiB | {r['paper_peak_extra_mb']:.1f} MiB | {r['paper_state_bytes']:,} B "
                   f"| {r['image_peak_extra_mb']:.1f} MiB | {r['image_state_bytes']:,} B |")
    return '\n'.join(out)

if __name__ == '__main__':
    p = argparse.ArgumentParser()
    p.add_argument('--shapes', nargs='*', default=list(SHAPES)); p.add_argument('--memory', type=int, default=0)
    p.add_argument('--no-memory', action='store_true')
    a = p.parse_args()
    if a.memory: print(json.dumps(memory_one(a.memory))); sys.exit()
    timing = [time_shape(s) for s in a.shapes]
    mem = [] if a.no_memory else memory()
    print(json.dumps(dict(timing=timing, memory=mem), indent=1))
    print(f"\ntorch {torch.__version__}, {torch.get_num_threads()} threads, {platform.processor() or platform.machine()}, load avg {os.getloadavg()[0]:.1f}\n")
    print(markdown(timing, mem))
