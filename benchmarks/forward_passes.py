"""Count the forward passes of one run's per-run analyses, and how many of them repeat an earlier identical pass.

    python benchmarks/forward_passes.py            # print the table
    python benchmarks/forward_passes.py --write    # also write benchmarks/forward_passes.csv

The analyses are bound by forward passes, so their floor is every needed pass once. This script runs every registered
analysis's per-run compute on two runs (`ape` and `none`) of a study with the `cpu` preset's analysis settings (the
split into halves, RPI, K permutations, the α grid, the corruption ladders, the accuracy-matched comparison, 10 kept
epochs, the same share of the test images for SSDC) but the `smoke` preset's tiny model and 512 synthetic test images,
so it takes a minute: the count of passes depends on the settings, not on the model. Every call of the one evaluation loop (`pe_anchor.metrics.measure.forward_batches`) is
recorded with what decides its output: the weights, the images, the RPI estimator and its seed, α and the batch size.
A pass whose key was seen before (in the same analysis or an earlier one) is a repeat; the floor is the passes minus
the repeats. `ssdc_only` counts passes that feed only SSDC, which stop after the last block's `ln1` tokens. An
analysis that `needs` others (`pe_anchor.analyses.units.Analysis.needs`) is given their per-run tables of the same run as the
engine gives them: written as stored results and read back."""
import argparse, hashlib, sys, tempfile
from pathlib import Path
import pandas as pd, torch

ROOT = Path(__file__).resolve().parent.parent

def digest(t:torch.Tensor) -> str: return hashlib.sha1(t.detach().cpu().contiguous().numpy().tobytes()).hexdigest()[:12]

def weights(model) -> str:
    net = getattr(model, 'module', model)
    return hashlib.sha1(b''.join(digest(p).encode() for p in net.state_dict().values())).hexdigest()[:12]

def recorder(log:list, state:dict):
    "A stand-in for `forward_batches` that records each pass, then runs the real one."
    import pe_anchor.metrics.measure as M
    real = M.forward_batches
    def counted(model, images, mean, std, rpi=None, seed=0, pe_scale=1.0, batch_size=500, device=None, **forward):
        key = (weights(model), digest(images), rpi, seed if rpi else None, float(pe_scale), batch_size)
        row = dict(analysis=state['analysis'], condition=state['condition'], key=key, images=len(images),
                   ssdc_only=False)
        log.append(row)
        for out in real(model, images, mean, std, rpi, seed, pe_scale, batch_size, device, **forward):
            row['ssdc_only'] = out is None  # a capture ended the pass before the logits
            yield out
    return real, counted

def read_back(tables:dict, folder:Path) -> dict:
    "`tables` written as a stored result is (`save_table`) and read back (`read_result`), as the engine passes them."
    from pe_anchor.base.files import save_table
    from pe_anchor.engine.stored import read_result
    folder.mkdir(parents=True, exist_ok=True)
    for k, df in tables.items(): save_table(df, folder / f'{k}.csv')
    return {k: read_result(folder / f'{k}.csv') for k in tables}

def count(out:Path) -> pd.DataFrame:
    import pe_anchor.metrics.measure as M
    from pe_anchor.base.core import PRESETS
    from pe_anchor.analyses.study import make_study
    from pe_anchor.runs.training import get_trained
    from pe_anchor.analyses.units import ANALYSIS_UNITS
    torch.set_num_threads(1)
    cpu = {k: v for k, v in PRESETS['cpu'].study.items() if k not in ('seeds', 'overrides')}
    cpu['n_images'] = cpu['n_images'] * 512 // 10_000  # the same share of the test images (512 synthetic, 10,000 FMNIST)
    overrides = dict(epochs=10, keep_epoch_checkpoints=True)
    study = make_study('smoke', 'ape,none', [0], **cpu, overrides=overrides)
    runs = {c: get_trained(c, 'smoke', 0, out / 'runs', progress=False, **overrides) for c in ('ape', 'none')}
    log, state = [], {}
    real, counted = recorder(log, state)
    M.forward_batches = counted
    stored = {}  # (analysis, condition): its per-run tables, read back from CSV for the analyses that need them
    try:
        for name, a in ANALYSIS_UNITS.items():
            for c, s in a.keys(study):
                state.update(analysis=name, condition=c)
                given = dict(inputs={n: stored[(n, c)] for n in a.needs}) if a.needs else {}
                tables = a.per_run(runs[c], study, out / 'corrupted', None, **given)
                stored[(name, c)] = read_back(tables, out / 'results' / name / c)
    finally: M.forward_batches = real
    df, seen = pd.DataFrame(log), set()
    df['repeat'] = [int(k in seen or bool(seen.add(k))) for k in df.key]
    return df

def summary(df:pd.DataFrame) -> pd.DataFrame:
    df = df.assign(repeat_images=df.images * df.repeat)
    g = df.groupby(['analysis', 'condition'], sort=False)
    t = g.agg(passes=('key', 'size'), repeats=('repeat', 'sum'), ssdc_only=('ssdc_only', 'sum'),
              images=('images', 'sum'), repeat_images=('repeat_images', 'sum')).reset_index()
    total = pd.DataFrame([dict(analysis='all', condition='both', **t.drop(columns=['analysis', 'condition']).sum())])
    t = pd.concat([t, total], ignore_index=True)
    t['floor'] = t.passes - t.repeats
    t['passes_per_floor'] = (t.passes / t.floor).round(3)
    t['images_per_floor'] = (t.images / (t.images - t.repeat_images)).round(3)  # passes weighted by their images
    return t

def time_passes(repeats:int=5) -> pd.DataFrame:
    """Seconds of one pass of the `cpu` model (untrained: the cost does not depend on the weights) over 1,000 Fashion-MNIST
    sized images, one thread: a full pass (logits) and an SSDC-only pass (`stream_tokens`, which stops after the last
    block's `ln1`), interleaved so that a change of load hits both alike."""
    import os, time
    from pe_anchor.metrics.measure import forward_batches, stream_tokens
    from pe_anchor.vision.models import create_model
    torch.set_num_threads(1)
    m, g = create_model('ape', 'cpu', seed=0), torch.Generator().manual_seed(0)
    x = torch.randint(0, 256, (1000, 1, 28, 28), dtype=torch.uint8, generator=g)
    full = lambda: [o for o in forward_batches(m, x, (0.5,), (0.5,), batch_size=500)]
    ssdc = lambda: stream_tokens(m, x, (0.5,), (0.5,), lambda s, l, t: None, batch_size=500)
    rows = []
    for r in range(repeats):
        for name, f in (('full pass (logits)', full), ('SSDC-only pass (stops at the last ln1)', ssdc)):
            t0 = time.perf_counter(); f(); rows.append(dict(repeat=r, pass_=name, seconds=time.perf_counter() - t0))
    t = pd.DataFrame(rows).groupby('pass_', sort=False).seconds.median().reset_index()
    t['ratio_to_full'] = (t.seconds / t.seconds.iloc[0]).round(3)
    return t.assign(load_average=round(os.getloadavg()[0], 2)).rename(columns={'pass_': 'pass'})

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--write', action='store_true', help='write benchmarks/forward_passes*.csv')
    ap.add_argument('--time', action='store_true', help='also time a full and an SSDC-only pass of the cpu model')
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix='pe_anchor-passes-') as d:
        t = summary(count(Path(d)))
    print(t.to_string(index=False))
    if a.write: t.to_csv(ROOT / 'benchmarks' / 'forward_passes.csv', index=False)
    if a.time:
        s = time_passes()
        print(s.to_string(index=False))
        if a.write: s.to_csv(ROOT / 'benchmarks' / 'forward_passes_time.csv', index=False)

if __name__ == '__main__': main()
