"""Put a committed part's final weights into the part, after its runs were trained again and proved byte-identical
(`pe-anchor-upkeep commit-weights`, `pe_anchor.engine.upkeep.commit_weights`: nbs/lib/24e_upkeep.ipynb).

    python scripts/recompute_part.py reports/cpu-parts/seed-100 --conditions none,ape,sincos,rope,rpt > seed-100.log
    python scripts/commit_weights.py reports/cpu-parts/seed-100 --log seed-100.log [--cache-root DIR]
"""
import sys
from pe_anchor.cli import upkeep_main

if __name__ == '__main__': sys.exit(upkeep_main(['commit-weights', *sys.argv[1:]]))
