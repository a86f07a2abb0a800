#!/usr/bin/env bash
# Set up pe_anchor from scratch: a virtual environment in .venv with pinned torch, the package and its dev tools,
# the Jupyter kernel papermill needs, and (where apt exists and we are root) Debian's Fashion-MNIST package.
# Idempotent: re-running it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
# torch must be this pair here (served from local disk; other builds lack a working torchvision). On another machine
# set TORCH_SPEC, e.g. TORCH_SPEC="torch torchvision --index-url https://download.pytorch.org/whl/cu124".
TORCH_SPEC=${TORCH_SPEC:-"torch==2.14.1 torchvision==0.29.1"}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
python -c "import torch, torchvision" 2>/dev/null || pip install -q $TORCH_SPEC
# pin the installed torch so nothing below can pull a different one
python -c "import torch, torchvision; print(f'torch=={torch.__version__.split(\"+\")[0]}\ntorchvision=={torchvision.__version__.split(\"+\")[0]}')" > .venv/torch-constraints.txt
pip install -q -c .venv/torch-constraints.txt -e ".[dev]"
# display name = kernel name: nbdev_clean writes `python3` as every notebook's display name, so JupyterLab opens them clean
python -m ipykernel install --sys-prefix --name python3 --display-name python3 >/dev/null
if [ ! -d /usr/share/datasets/fashion-mnist ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  (apt-get install -y -qq dataset-fashion-mnist >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq dataset-fashion-mnist)) \
    || echo "note: could not install Debian's dataset-fashion-mnist; pe_anchor will fall back to torchvision's download"
fi
# the report test opens the rendered HTML in headless Chromium (PE_ANCHOR_BROWSER=0 skips installing it)
if [ "${PE_ANCHOR_BROWSER:-1}" = 1 ] && ! command -v chromium >/dev/null && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  apt-get install -y -qq chromium >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq chromium) || echo "note: chromium not installed"
fi
echo "pe_anchor set up: $(python -c 'import pe_anchor, torch; print("pe_anchor", pe_anchor.__version__, "torch", torch.__version__)')"
