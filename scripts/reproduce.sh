#!/usr/bin/env bash
# Set up and run the reproduction (default: preset cpu, Fashion-MNIST, the preset's 6 seeds): train or load every
# condition x seed on one worker per core (resumable: re-running reuses finished runs and resumes a killed one), run
# every analysis, write claims.csv and report.html. Outputs: outputs/<preset>/; runs: ~/.cache/pe_anchor (or $PE_ANCHOR_CACHE).
#   PRESET=paper bash scripts/reproduce.sh                  # paper scale (needs ImageNet-100 and a GPU)
#   SEEDS="0 1" WORKERS=1 OUT=outputs/two bash scripts/reproduce.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
PRESET=${PRESET:-cpu}; OUT=${OUT:-outputs/$PRESET}
args=(--preset "$PRESET" --out-dir "$OUT" --workers "${WORKERS:-0}")
# a comma list ("0,1,"): these seeds (a single integer would be a count)
if [ -n "${SEEDS:-}" ]; then args+=(--seeds "$(echo $SEEDS | tr ' ' ','),"); fi
exec pe-anchor-paper "${args[@]}"
