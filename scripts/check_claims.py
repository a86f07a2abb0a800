"""Check committed studies: re-derived from their parts, their claims recomputed with the current code, the code's rules
against the pre-registration's block (`pe-anchor-upkeep check-claims`, `pe_anchor.engine.recheck`: nbs/lib/24f_recheck.ipynb).

    python scripts/check_claims.py [OUT ...] [--prereg FILE]   # default: reports/cpu, cpu-exploratory, cpu-families
"""
import sys
from pe_anchor.cli import upkeep_main

if __name__ == '__main__': sys.exit(upkeep_main(['check-claims', *sys.argv[1:]]))
