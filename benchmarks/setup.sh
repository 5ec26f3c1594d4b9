#!/usr/bin/env bash
# Create .bench-venv/ at the repository root with the peer tools the benchmarks
# compare against, plus this project installed editable.
#
#   benchmarks/setup.sh            # create (or update) .bench-venv
#   PYTHON=python3.12 benchmarks/setup.sh
#
# The peers are pinned so that figures from different runs are comparable.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.bench-venv"
PYTHON="${PYTHON:-python3}"

RUFF_VERSION=0.17.6
PYLSP_VERSION=1.15.0
JEDI_LS_VERSION=0.47.0
FIXIT_VERSION=2.2.1
# pylsp's own lint plugins (enabled by default when installed); without them pylsp
# publishes empty diagnostics and the latency benchmark would measure nothing.
PYFLAKES_VERSION=3.2.0
PYCODESTYLE_VERSION=2.12.1
MCCABE_VERSION=0.7.0

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    "ruff==$RUFF_VERSION" \
    "python-lsp-server==$PYLSP_VERSION" \
    "pyflakes==$PYFLAKES_VERSION" \
    "pycodestyle==$PYCODESTYLE_VERSION" \
    "mccabe==$MCCABE_VERSION" \
    "jedi-language-server==$JEDI_LS_VERSION" \
    "fixit==$FIXIT_VERSION" \
    -e "$ROOT"

echo "== .bench-venv ready: $VENV"
for tool in ruff pylsp jedi-language-server fixit pallas-lsp; do
    if [ -x "$VENV/bin/$tool" ]; then
        printf '   %-22s %s\n' "$tool" "$("$VENV/bin/$tool" --version 2>&1 | head -n1)"
    else
        printf '   %-22s MISSING\n' "$tool"
    fi
done
"$VENV/bin/python" -m pip check || echo "warning: pip check reports conflicts (see above)"
