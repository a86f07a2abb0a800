"""The golden result: the smoke study of `pe_anchor.engine.parts.golden_study()` computed whole, its tables and claims kept in
`data/golden-smoke/` (`pe-anchor-upkeep golden`, `pe_anchor.engine.upkeep`: nbs/lib/24e_upkeep.ipynb).

    python scripts/golden.py --write            # (re)make data/golden-smoke/ (after a RESULTS_VERSION bump)
    python scripts/golden.py --compare DIR      # compare a merged smoke study in DIR with the golden tables
    python scripts/golden.py --measure          # the study on this CPU's widest kernels and on AVX2 kernels
    python scripts/golden.py --here OUT.csv     # the study on this machine's default device, compared
"""
import sys
from pe_anchor.cli import upkeep_main

if __name__ == '__main__': sys.exit(upkeep_main(['golden', *sys.argv[1:]]))
