#!/usr/bin/env bash
# CI for the VS Code extension: npm ci, type check, unit tests, bundle the server, package the
# .vsix, and the end-to-end test in real VS Code (code-server 4.100.3 + headless Chromium).
# Exits non-zero on any failure. Runs from any directory; as root on a clean Debian 12 it
# installs what it needs with apt-get (chromium, ripgrep, the native-build toolchain).
#
# Expects the repository's .venv (created by scripts/test) for the e2e's pallasLsp.path variant.
# Environment: SKIP_E2E=1 skips the e2e; E2E_VARIANTS="path bundled untrusted" picks variants;
# PALLAS_BUNDLE_PYTHON picks the Python the server is bundled for.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$here"
step() { printf '\n=== vscode ci: %s (%ss)\n' "$1" "$SECONDS"; }

step "system packages"
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v rg >/dev/null 2>&1 || need+=(ripgrep)
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v make >/dev/null 2>&1 || need+=(make)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
command -v python3 >/dev/null 2>&1 || need+=(python3)
if ((${#need[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "vscode ci: missing ${need[*]}; install them (apt-get install -y ${need[*]}) or run as root" >&2
    exit 1
  fi
  echo "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${need[@]}"
fi
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [[ "$node_major" != 20 ]]; then
  echo "vscode ci: Node 20 is needed (code-server 4.100.3 for the e2e); this is $(node --version)" >&2
  exit 1
fi

step "npm ci"
npm ci --no-audit --no-fund

step "type check and unit tests"
npm run -s typecheck
npm run -s test:unit

step "bundle the server"
if [[ -z "${PALLAS_BUNDLE_PYTHON:-}" ]]; then
  if python3 -m pip --version >/dev/null 2>&1; then
    PALLAS_BUNDLE_PYTHON=python3
  elif [[ -x "$repo/.venv/bin/python" ]]; then
    PALLAS_BUNDLE_PYTHON="$repo/.venv/bin/python"
  else
    echo "vscode ci: no Python with pip to bundle the server with (set PALLAS_BUNDLE_PYTHON)" >&2
    exit 1
  fi
fi
PALLAS_BUNDLE_PYTHON="$PALLAS_BUNDLE_PYTHON" npm run -s bundle

step "package"
rm -f ./*.vsix
npm run -s package
version="$(node -p 'require("./package.json").version')"
vsix="pallas-lsp-$version.vsix"
test -f "$vsix"
# The package must carry the docs, the icon, the license and the bundled server, and nothing else.
python3 - "$vsix" <<'PY'
import os, sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
need = ["extension/package.json", "extension/readme.md", "extension/changelog.md", "extension/LICENSE.txt",
        "extension/images/icon.png", "extension/dist/extension.js", "extension/bundled/tool/server.py",
        "extension/bundled/libs/pallas_lsp/__init__.py", "extension/bundled/libs/pallas_lsp_bundle.json"]
missing = [n for n in need if n not in names]
bad = sorted(n for n in names if n.endswith((".ts", ".map", ".pyc"))
             or any(s in n for s in ("node_modules/", "extension/src/", "test-artifacts", ".e2e-cache")))
if missing or bad:
    sys.exit(f"vsix: missing {missing}, unwanted {bad[:10]}")
print(f"{sys.argv[1]}: {len(names)} files, {os.path.getsize(sys.argv[1]) / 1e6:.1f} MB")
PY

if [[ "${SKIP_E2E:-}" == 1 ]]; then
  step "e2e skipped (SKIP_E2E=1)"
  exit 0
fi
step "e2e in code-server"
variants=()
for v in ${E2E_VARIANTS:-path bundled untrusted}; do variants+=(--variant "$v"); done
node test/e2e/run.mjs --no-package "${variants[@]}"
step "done"
