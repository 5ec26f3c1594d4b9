"""Launch the pallas-lsp server bundled with the VS Code extension.

``python server.py serve [--stdio]`` (or ``check ...``, ``explain ...``): puts the
bundled libraries (``../libs``, filled by ``npm run bundle``) first on sys.path and
runs ``pallas_lsp.cli.main``.
"""
from __future__ import annotations

import json
import os
import sys
import sysconfig

LIBS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "libs"))


def _built_for() -> str:
    try:
        with open(os.path.join(LIBS, "pallas_lsp_bundle.json"), encoding="utf-8") as f:
            m = json.load(f)
        return f"Python {m.get('python')} {m.get('platform')}"
    except (OSError, ValueError):
        return "an unknown Python"


def main() -> int:
    sys.path.insert(0, LIBS)
    try:
        import libcst.native  # noqa: F401  (the compiled parser: fails on a Python the bundle was not built for)
        from pallas_lsp.cli import main as cli_main
    except ImportError as exc:
        here = f"Python {sys.version_info[0]}.{sys.version_info[1]} {sysconfig.get_platform()}"
        print(
            f"pallas-lsp (bundled): cannot load the bundled libraries in {LIBS}: {exc}\n"
            f"They were built for {_built_for()}; this is {here} ({sys.executable}).\n"
            "Set pallasLsp.interpreter to a matching Python, or install pallas-lsp in your environment "
            "(pip install pallas-lsp) and set pallasLsp.importStrategy to fromEnvironment.",
            file=sys.stderr,
        )
        return 2
    import pallas_lsp

    if (sys.argv[1:2] or ["serve"])[0] == "serve":
        # stderr goes to the editor's log: say which copy runs.
        print(f"pallas-lsp (bundled) {pallas_lsp.__version__} from {os.path.dirname(pallas_lsp.__file__)} "
              f"on Python {sys.version.split()[0]} ({sys.executable})", file=sys.stderr, flush=True)
    return int(cli_main(sys.argv[1:] or ["serve"]) or 0)


if __name__ == "__main__":
    sys.exit(main())
