#!/usr/bin/env bash
# Set up, check the notebooks are clean and the library is in sync, then run every notebook as a test (nbdev_test).
# Ends with one line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }
. .venv/bin/activate
python scripts/run_tests.py "$@"
