#!/usr/bin/env bash
# Set up and run the reproduction on the embedded default (preset cpu, Fashion-MNIST): train or load every condition for
# every seed (resumable: re-running reuses finished runs and resumes a killed one), then run the experiment notebooks
# through papermill. Outputs: outputs/<preset>/ (tidy tables, executed notebooks); runs: data/runs/.
#   PRESET=paper SEEDS="0 1 2 3" bash scripts/reproduce.sh     # paper scale (needs ImageNet-100 and a GPU)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
PRESET=${PRESET:-cpu}; SEEDS=${SEEDS:-"0 1 2 3"}; OUT=${OUT:-outputs/$PRESET}
mkdir -p "$OUT"
if python -c "import pe_anchor.paper" 2>/dev/null; then
  # a comma list ("0,1,2,"): these seeds (a single integer would be a count, as -p seeds N in the notebooks)
  exec pe-anchor-paper --preset "$PRESET" --seeds "$(echo $SEEDS | tr ' ' ',')," --out-dir "$OUT"
fi
for c in none ape sincos rope rpt; do for s in $SEEDS; do
  python -m pe_anchor.training --condition "$c" --preset "$PRESET" --seed "$s"
done; done
seeds_list="[$(echo $SEEDS | sed 's/ /, /g')]"
for nb in 05_fragility 06_scaling; do
  [ -f "nbs/$nb.ipynb" ] || continue
  papermill "nbs/$nb.ipynb" "$OUT/$nb.ipynb" -p pe all -p preset "$PRESET" -y "seeds: $seeds_list" -p out_dir "$OUT/$nb"
done
echo "done: results in $OUT"
