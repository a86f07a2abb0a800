"""Recompute some runs' per-run results of a committed part with the current code, and compare them byte for byte
(`pe-anchor-upkeep recompute-part`, `pe_anchor.engine.upkeep.recompute_part`: nbs/lib/24e_upkeep.ipynb).

    python scripts/recompute_part.py reports/cpu-parts/seed-100 --conditions ape [--workers N]
"""
import sys
from pe_anchor.cli import upkeep_main

if __name__ == '__main__': sys.exit(upkeep_main(['recompute-part', *sys.argv[1:]]))
