"""Training-step throughput (forward + backward + AdamW step, images/s) of each pe_anchor PE against timm's
VisionTransformer of the same size, measured interleaved in one process so machine load affects both alike.

    python benchmarks/model_bench.py [--steps 20] [--threads 2]

Prints a markdown table; the measured table is kept in benchmarks/README.md."""
import argparse, time
import torch, torch.nn.functional as F
from timm.models.vision_transformer import VisionTransformer
from pe_anchor.base.config import make_config
from pe_anchor.vision.models import build_model

SHAPES = {  # name -> (preset, overrides, batch)
    'cpu': ('cpu', {}, 128),
    'paper-small': ('paper', dict(img_size=112, depth=4, drop=0., attn_drop=0., drop_path=0.), 32),  # 7x7 tokens of D 384
}

def timm_twin(m):
    "timm's ViT with the same shape: learned PE, CLS, no final norm, token pooling."
    c = m.cfg
    return VisionTransformer(img_size=c.img_size, patch_size=c.patch_size, in_chans=c.in_chans, num_classes=c.num_classes,
                             embed_dim=c.dim, depth=c.depth, num_heads=c.heads, mlp_ratio=c.mlp_ratio, qkv_bias=True,
                             final_norm=False, global_pool='token', drop_rate=c.drop, attn_drop_rate=c.attn_drop,
                             proj_drop_rate=c.drop, drop_path_rate=c.drop_path)

def step_time(model, x, y, steps):
    "Median seconds of one training step."
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4); model.train(); ts = []
    for i in range(steps + 3):
        t0 = time.perf_counter()
        loss = F.cross_entropy(model(x), y); opt.zero_grad(); loss.backward(); opt.step()
        if i >= 3: ts.append(time.perf_counter() - t0)
    return sorted(ts)[len(ts) // 2]

def main():
    ap = argparse.ArgumentParser(); ap.add_argument('--steps', type=int, default=20); ap.add_argument('--threads', type=int, default=2)
    a = ap.parse_args(); torch.set_num_threads(a.threads)
    print(f"torch {torch.__version__}, {a.threads} threads, median of {a.steps} steps\n")
    print("| shape | PE | ours img/s | timm img/s | ours / timm |\n|---|---|---|---|---|")
    for shape, (preset, ov, bs) in SHAPES.items():
        for pe in ('none', 'ape', 'sincos', 'rope'):
            m = build_model(make_config(pe, preset, **ov).model); t = timm_twin(m)
            x, y = torch.randn(bs, m.cfg.in_chans, m.cfg.img_size, m.cfg.img_size), torch.randint(0, m.cfg.num_classes, (bs,))
            ours, theirs = step_time(m, x, y, a.steps), step_time(t, x, y, a.steps)
            print(f"| {shape} | {pe} | {bs/ours:.0f} | {bs/theirs:.0f} | {theirs/ours:.2f} |", flush=True)

if __name__ == '__main__': main()
