"""The `paper` preset on a GPU: training-step throughput of the paper's ViT-S/16 per condition and precision, the
training time of one run it implies, and one `smoke` run trained end to end on the GPU through `train_run`.

    python benchmarks/gpu_bench.py --out gpu_bench.csv [--steps 30] [--device cuda]

Each step is the trainer's own (`pe_anchor.runs.training.train_step`: the preset's AdamW, cosine schedule, label
smoothing, gradient clipping, RPT's permutation for `rpt`) on a batch of random normalised images already on the
device, so the figure is the model's compute alone: reading and decoding ImageNet-100's JPEGs is not in it. One run's
training time is then 60 epochs x 126,689 images / (images per second). The last rows train the `smoke` preset's `ape`
and `rope` runs with `train_run` on the device (synthetic images) and record their test accuracy and time."""
import argparse, json, statistics, tempfile, time
from pathlib import Path
import torch
import pandas as pd
from pe_anchor.base.config import make_config
from pe_anchor.vision.models import build_model, draw_permutation
from pe_anchor.runs.training import make_optimizer, train_step, autocast_ctx, train_run

TRAIN_IMAGES = 126_689  # ImageNet-100's training images (the `paper` preset's cost line)

def step_rate(condition:str, precision:str, device:torch.device, steps:int, compile_:bool=False, batch:int=0) -> dict:
    "Median images/s of the trainer's step for one condition of the `paper` preset (`batch` > 0: another batch size)."
    cfg = make_config(condition, 'paper', precision=precision, **({'batch_size': batch} if batch else {}))
    m, t = cfg.model, cfg.train
    model = build_model(m, seed=0).to(device)
    model = torch.compile(model) if compile_ else model
    opt = make_optimizer(model, t)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0)
    g = torch.Generator(device='cpu').manual_seed(0)
    x = torch.randn(t.batch_size, m.in_chans, m.img_size, m.img_size, generator=g).to(device)
    y = torch.randint(0, m.num_classes, (t.batch_size,), generator=g).to(device)
    times = []
    for i in range(steps + 5):
        perm = None if t.train_permute == 'none' else draw_permutation(m.num_patches, t.batch_size, t.train_permute, g)
        perm = None if perm is None else perm.to(device)
        if device.type == 'cuda': torch.cuda.synchronize()
        t0 = time.perf_counter()
        train_step(model, opt, sched, x, y, perm, cfg, autocast_ctx(cfg, device))  # .item() syncs
        if i >= 5: times.append(time.perf_counter() - t0)
    sec = statistics.median(times)
    ips = t.batch_size / sec
    return dict(case='train step', condition=condition, precision=precision, compile=compile_, batch=t.batch_size,
                step_ms=1000 * sec, img_per_s=ips, run_hours=t.epochs * TRAIN_IMAGES / ips / 3600,
                peak_gib=torch.cuda.max_memory_allocated(device) / 2**30 if device.type == 'cuda' else float('nan'))

def smoke_run(condition:str, device:torch.device) -> dict:
    "Train the `smoke` preset's run of `condition` end to end on `device`; its test accuracy and wall time."
    cfg = make_config(condition, 'smoke')
    with tempfile.TemporaryDirectory() as d:
        rdir = Path(d) / 'run'
        t0 = time.perf_counter()
        train_run(cfg, rdir, device=device, progress=False)
        done = json.loads((rdir / 'done.json').read_text())
    return dict(case='smoke train_run', condition=condition, precision=cfg.train.precision, compile=False,
                batch=cfg.train.batch_size, seconds=time.perf_counter() - t0, test_acc=done.get('test_acc'))

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--out', default='gpu_bench.csv'); ap.add_argument('--steps', type=int, default=30)
    ap.add_argument('--device', default='cuda'); ap.add_argument('--conditions', default='none,ape,sincos,rope,rpt')
    ap.add_argument('--compile', default='ape', help="conditions also timed under torch.compile (bf16); '' = none")
    ap.add_argument('--batch', type=int, default=0, help='another batch size than the preset\'s (a dry run on a CPU)')
    a = ap.parse_args()
    device = torch.device(a.device)
    head = dict(torch=torch.__version__, gpu=torch.cuda.get_device_name(device) if device.type == 'cuda' else 'cpu')
    print(head, flush=True)
    rows = []
    for precision in ('fp32', 'bf16'):
        for c in a.conditions.split(','):
            rows.append(step_rate(c, precision, device, a.steps, batch=a.batch)); print(rows[-1], flush=True)
    for c in [c for c in a.compile.split(',') if c]:
        rows.append(step_rate(c, 'bf16', device, a.steps, compile_=True, batch=a.batch)); print(rows[-1], flush=True)
    for c in ('ape', 'rope'):
        rows.append(smoke_run(c, device)); print(rows[-1], flush=True)
    pd.DataFrame([r | head for r in rows]).to_csv(a.out, index=False)
    print(f"wrote {a.out}")

if __name__ == '__main__': main()
