"""Preliminary single-seed readout of the cpu preset, computed with the exported functions on the cached seed-0 runs.
Run: OMP_NUM_THREADS=1 python reports/preliminary-cpu-seed0/make_tables.py from the repository root."""
import torch, pandas as pd, time
torch.set_num_threads(1)
from pe_anchor.interventions import ssdc_profiles, delta_ssdc, rpi_auc
from pe_anchor.robustness import fragility_table
from pe_anchor.training import get_trained
t0=time.time()
prof = ssdc_profiles('all', preset='cpu', seeds=(0,), perm_seeds=(0,1,2), n_images=1000, untrained=True)
prof.to_csv('reports/preliminary-cpu-seed0/profiles.csv', index=False)
print(prof.pivot_table(index=['condition','trained','permuted'], columns='layer', values='ssdc').round(3).to_string())
print('profiles', time.time()-t0)
runs = [get_trained(c, 'cpu', 0) for c in ('none','ape','sincos','rope','rpt')]
fr = fragility_table(runs, corruptions=('jpeg','blur'), limit=None)
fr.to_csv('reports/preliminary-cpu-seed0/fragility.csv', index=False)
print(fr[['condition','corruption','acc_clean','acc_shift','fs']].round(4).to_string())
print('total', time.time()-t0)
