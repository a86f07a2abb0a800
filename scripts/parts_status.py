"""Which parts of the confirmatory `cpu` study are committed, what each cost, and what is left
(`pe-anchor-upkeep parts-status`, `pe_anchor.engine.upkeep.parts_status`: nbs/lib/24e_upkeep.ipynb).

    python scripts/parts_status.py            # print the status
    python scripts/parts_status.py --write    # and regenerate reports/cpu-parts/README.md
"""
import sys
from pe_anchor.cli import upkeep_main

if __name__ == '__main__': sys.exit(upkeep_main(['parts-status', *sys.argv[1:]]))
