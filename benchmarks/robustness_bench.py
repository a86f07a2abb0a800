"""Robustness timings: build the corrupted Fashion-MNIST test sets (10,000 images; the paper's `jpeg` and `blur` plus
the ImageNet-C `jpeg-c` and `blur-c` severities 1-5) and evaluate one condition at preset `cpu` on the clean set and
every corrupted set.

    python benchmarks/robustness_bench.py [--condition ape] [--threads 2] [--trained]

Without --trained the model is the untrained cpu-preset model (same cost as a trained one: same shapes); with
--trained it comes from the run cache through `get_trained` (trained first if missing). Prints a markdown table;
the measured table is kept in benchmarks/README.md ("Robustness timings")."""
import argparse, os, tempfile, time
import torch
from pe_anchor.vision.data import get_dataset
from pe_anchor.vision.images import eval_tensors
from pe_anchor.runs.training import get_trained, untrained_model, accuracy
from pe_anchor.analyses.corruptions import corruption_grid
from pe_anchor.analyses.fragility import fragility_table
from pe_anchor.analyses.corruptions import jpeg
from pe_anchor.analyses.corrupted import corrupted_images, images_fingerprint

GRID = ('jpeg', 'blur', 'jpeg-c', 'blur-c')

def timed(f):
    "(result, seconds) of calling `f`."
    t0 = time.perf_counter(); r = f(); return r, time.perf_counter() - t0

def main(condition='ape', threads=2, trained=False):
    torch.set_num_threads(threads)
    ds = get_dataset('fashion-mnist', 'test', 28); x, y = eval_tensors(ds)
    grid, rows = corruption_grid(GRID), []
    with tempfile.TemporaryDirectory() as d:
        fp, t_fp = timed(lambda: images_fingerprint(x))
        rows.append(('fingerprint (content hash of the 10k clean images)', t_fp))
        cold = 0.0
        for c, s in grid:
            _, t = timed(lambda: corrupted_images(x, c, None if s == 'paper' else s, d, fingerprint=fp)); cold += t
            rows.append((f'build {c} {s}', t))
        rows.append((f'build all {len(grid)} sets (cold, written to the cache)', cold))
        _, warm = timed(lambda: [corrupted_images(x, c, None if s == 'paper' else s, d, fingerprint=fp) for c, s in grid])
        rows.append((f'load all {len(grid)} sets (warm cache)', warm))
        rows.append(('jpeg q=5, tensor path, serial', timed(lambda: jpeg(x, 5, 'tensor', workers=0))[1]))
        rows.append(('jpeg q=5, PIL path, serial', timed(lambda: jpeg(x, 5, 'pil', workers=0))[1]))
        model = get_trained(condition, 'cpu', 0, progress=False).model if trained else untrained_model(condition, 'cpu', 0)
        model = model.cpu().eval()
        rows.append(('one clean eval pass (10k images, batch 1000)', timed(lambda: accuracy(model, x, y, ds.mean, ds.std, 1000))[1]))
        df, t_eval = timed(lambda: fragility_table({(condition, 0): model}, (x, y, ds.mean, ds.std), GRID, cache_dir=d, batch_size=1000))
        rows.append((f'fragility_table, one {"trained" if trained else "untrained"} {condition} model: clean + {len(grid)} sets (warm cache)', t_eval))
        _, t_paper = timed(lambda: fragility_table({(condition, 0): model}, (x, y, ds.mean, ds.std), ('jpeg', 'blur'), cache_dir=d, batch_size=1000))
        rows.append((f'fragility_table, paper settings only: clean + 2 sets (warm cache)', t_paper))
    print(f"threads={threads}, load average {os.getloadavg()[0]:.1f}, condition {condition}, {'trained' if trained else 'untrained'} cpu-preset model\n")
    print('| step | seconds |\n|---|---|')
    for name, t in rows: print(f'| {name} | {t:.2f} |')

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--condition', default='ape'); p.add_argument('--threads', type=int, default=2)
    p.add_argument('--trained', action='store_true')
    main(**vars(p.parse_args()))
