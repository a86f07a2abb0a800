"""What a reproduction cost: every run's training time (from its `done.json`) and every analysis's time (from the
out-dir's manifest), as one table and a summary.

    python benchmarks/reproduction_cost.py [--out-dir reports/cpu] [--cache-root data/runs] [--workers 2]
                                           [--out benchmarks/reproduction_cost.csv]
    python benchmarks/reproduction_cost.py --estimate [--preset cpu] [--workers 2]   # from a short measured run
    python benchmarks/reproduction_cost.py --estimate --reuse                        # re-scale the measured parts

A run records its wall seconds, the CPU seconds of its process (`cpu_seconds`: on an idle core, wall = CPU for a
single-thread run), its thread count and the executor that trained it. The summary adds what the same grid costs on
`workers` idle cores: the runs' CPU seconds packed onto `workers` single-thread workers (longest first), plus the
analyses' recorded seconds. Reads only; writes only `--out`.

`--estimate` measures instead of reading: it reproduces the preset's full study with one seed per condition and
one-epoch runs (`overrides={'epochs': 1}`; every analysis at the preset's
settings) into an empty temporary out-dir and cache with `workers` local workers (the measured parts:
`benchmarks/reproduction_parts.csv`), then scales each part to the preset's seeds and epochs: a run's CPU seconds x
epochs (each epoch trains, evaluates and checkpoints alike; the run's fixed start-up is scaled too, so this errs
long), the per-run analyses x seeds, emergence x seeds x (epochs + 1) / 2 (one SSDC profile per kept weights: the
initialisation and every epoch), the claims and the report once. An estimate from measured parts, not a
measurement of the whole; written to `benchmarks/reproduction_estimate.csv`.
"""
import argparse, heapq, json, sys
from datetime import datetime, timedelta
from pathlib import Path
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

def run_rows(study, cache_root) -> pd.DataFrame:
    "One row per run of `study`: condition, seed, wall and CPU seconds, threads, executor, start and finish."
    from pe_anchor.runs.cache import run_dir
    rows = []
    for c, s in study.run_keys:
        d = json.loads((run_dir(study.config(c, s), cache_root) / 'done.json').read_text())
        end = datetime.fromisoformat(d['finished'])
        rows.append(dict(kind='run', name=f'{c} s{s}', wall_s=d.get('wall_seconds'), cpu_s=d.get('cpu_seconds'),
                         threads=d.get('provenance', {}).get('threads'), executor=d.get('executor'),
                         start=end - timedelta(seconds=d.get('wall_seconds') or 0), finish=end))
    return pd.DataFrame(rows)

def analysis_rows(out_dir) -> pd.DataFrame:
    "One row per analysis unit of the reproduction in `out_dir`, with the seconds its manifest records."
    m = json.loads((Path(out_dir) / 'manifest.json').read_text())
    return pd.DataFrame([dict(kind='analysis', name=u, wall_s=round(e.get('seconds', 0), 1))
                         for u, e in m['units'].items()])

def packed_seconds(seconds, workers:int) -> float:
    "Wall seconds of independent tasks on `workers` workers, longest first onto the least-loaded worker."
    loads = [0.0] * workers
    for t in sorted(seconds, reverse=True): heapq.heapreplace(loads, loads[0] + t)
    return max(loads)

PER_RUN = ('interventions', 'fragility', 'scaling')  # analyses whose work grows with the runs
PARTS = ROOT / 'benchmarks' / 'reproduction_parts.csv'

def measure_parts(preset:str, workers:int) -> pd.DataFrame:
    "Reproduce `preset`'s study with one seed per condition and one-epoch runs; the seconds of each part."
    import tempfile, time
    from pe_anchor.analyses.study import make_study
    from pe_anchor.engine.paper import reproduce
    from pe_anchor.runs.executor import make_executor
    with tempfile.TemporaryDirectory(prefix='pe_anchor-cost-') as d:
        study = make_study(preset, 'all', 1, overrides={'epochs': 1})
        t0 = time.time()
        reproduce(study, Path(d) / 'out', Path(d) / 'runs', executor=make_executor(workers=workers))
        wall = time.time() - t0
        runs, analyses = run_rows(study, Path(d) / 'runs'), analysis_rows(Path(d) / 'out')
    rows = [dict(kind='run', name=n.split()[0], measured_s=c) for n, c in zip(runs.name, runs.cpu_s)]
    rows += [dict(kind='analysis', name=n, measured_s=w) for n, w in zip(analyses.name, analyses.wall_s)]
    rows += [dict(kind='whole', name='one seed, one epoch, all analyses', measured_s=round(wall, 1))]
    return pd.DataFrame(rows).assign(preset=preset, workers=workers, load_after=round(__import__('os').getloadavg()[0], 2))

def analysis_scale(unit:str, seeds:int, epochs:int) -> float:
    """How a one-seed, one-epoch analysis grows: per-run analyses with the seeds; emergence with the seeds and the
    weights measured per run (the initialisation and every epoch: 2 in the measurement, epochs + 1 in full)."""
    if unit == 'emergence': return seeds * (epochs + 1) / 2
    return seeds if unit in PER_RUN else 1

def scale_parts(parts:pd.DataFrame, seeds:int, epochs:int, workers:int) -> pd.DataFrame:
    "Each measured part scaled to `seeds` and `epochs`; training packed onto `workers`; the whole."
    runs, an = parts[parts.kind == 'run'], parts[parts.kind == 'analysis']
    rows = [dict(part=f'train {n} (x{seeds} seeds, x{epochs} epochs)', measured_s=m, scaled_s=round(m * seeds * epochs, 1))
            for n, m in zip(runs.name, runs.measured_s)]
    rows += [dict(part=f'analysis {u} (x{analysis_scale(u, seeds, epochs):g})', measured_s=m,
                  scaled_s=round(m * analysis_scale(u, seeds, epochs), 1)) for u, m in zip(an.name, an.measured_s)]
    train = packed_seconds([m * epochs for m in runs.measured_s for _ in range(seeds)], workers)
    total = train + sum(r['scaled_s'] for r in rows if r['part'].startswith('analysis'))
    rows += [dict(part=f'training packed onto {workers} workers', measured_s=None, scaled_s=round(train, 1)),
             dict(part=f'the reproduction on {workers} cores (estimate)',
                  measured_s=parts[parts.kind == 'whole'].measured_s.iloc[0], scaled_s=round(total, 1))]
    return pd.DataFrame(rows)

def estimate(preset:str, workers:int, out:str, reuse:bool=False):
    "Measure (or, with `reuse`, read back) a one-seed, one-epoch reproduction of `preset`; scale it to the full study."
    from pe_anchor.base.core import PRESETS
    full = PRESETS[preset]
    seeds, epochs = len(full.study['seeds']), full.run.train.epochs
    parts = pd.read_csv(PARTS) if reuse else measure_parts(preset, workers)
    if not reuse: parts.to_csv(PARTS, index=False)
    df = scale_parts(parts, seeds, epochs, workers)
    df.to_csv(out, index=False)
    print(df.to_markdown(index=False))
    print(f"estimated {preset} reproduction ({seeds} seeds, {epochs} epochs) on {workers} cores: "
          f"{df.scaled_s.iloc[-1] / 3600:.2f} h")

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out-dir', default=str(ROOT / 'reports' / 'cpu'))
    ap.add_argument('--cache-root', default=None)
    ap.add_argument('--workers', type=int, default=2)
    ap.add_argument('--out', default=None)
    ap.add_argument('--estimate', action='store_true'); ap.add_argument('--preset', default='cpu')
    ap.add_argument('--reuse', action='store_true', help='with --estimate: re-scale the measured parts in '
                    'benchmarks/reproduction_parts.csv instead of measuring again')
    a = ap.parse_args()
    if a.estimate:
        return estimate(a.preset, a.workers, a.out or str(ROOT / 'benchmarks' / 'reproduction_estimate.csv'), a.reuse)
    a.out = a.out or str(ROOT / 'benchmarks' / 'reproduction_cost.csv')
    from pe_anchor.engine.plan import read_plan
    from pe_anchor.runs.cache import default_cache_root
    study = read_plan(a.out_dir)
    runs = run_rows(study, a.cache_root or default_cache_root())
    analyses = analysis_rows(a.out_dir)
    pd.concat([runs, analyses]).to_csv(a.out, index=False)
    by = runs.assign(condition=runs.name.str.split().str[0]).groupby('condition', sort=False).cpu_s
    print(by.agg(['count', 'median', 'min', 'max']).round(0).to_markdown())
    train = packed_seconds(runs.cpu_s, a.workers)
    span = (runs.finish.max() - runs.start.min()).total_seconds()
    print(f"{len(runs)} runs: {runs.cpu_s.sum() / 3600:.2f} CPU hours; on {a.workers} idle single-thread workers "
          f"{train / 3600:.2f} h; measured span {span / 3600:.2f} h (first start to last finish, with any load)")
    print(analyses.to_markdown(index=False))
    total = train + analyses.wall_s.sum()
    print(f"analyses {analyses.wall_s.sum() / 60:.1f} min; the reproduction on {a.workers} idle cores from an empty "
          f"cache: {total / 3600:.2f} h")

if __name__ == '__main__': main()
