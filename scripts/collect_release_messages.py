#!/usr/bin/env python3
"""Run every rule's invalid example under another jax release and keep what it printed.

Usage:
    scripts/collect_release_messages.py --jax X [--python EXE] [-j N] [--timeout S] [--code PALnnn ...]

Each invalid example (``server/pallas_lsp/kinds/*/examples/<CODE>/invalid_*.py``) runs in its own
process under the release's interpreter (``.oracle-env-X``, see ``scripts/oracle-env --jax X``),
as ``__main__``, with JAX_PLATFORMS=cpu, at most 2 at a time at the lowest CPU priority (the
machine is shared). Writes ``tests/data/releases/messages/jax-X.json``: a header (release, jax, Python,
date, command, counts) and per example file the outcome, error class, first message line, the
innermost jax frame (``path:line:function``, path from ``jax/``), the error a host callback
raised inside it (``callback_error``), whether that is what the
example's ``# raises:`` line says the pinned release raises (``as_pinned``), and the slug of the
rule's record. ``tests/records/test_release_wordings.py`` feeds each message to ``explain``.
Keys are sorted, so a rerun differs only in ``date`` when nothing changed.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "server"))

from pallas_lsp.rules import default_rule_set  # noqa: E402
from pallas_lsp.rules.examples import examples_for  # noqa: E402

MARK = "@@release-message@@"
# Runs one file as __main__; prints its outcome as one JSON line after MARK: the exception's
# class, its first message line, and the innermost frame inside the jax package.
WRAPPER = r"""
import json, os, runpy, sys, traceback
path, mark = os.path.abspath(sys.argv[1]), sys.argv[2]
import re
res = {"outcome": "clean", "error_class": None, "message": None, "raise_site": None, "callback_error": None}
try:
    sys.argv = [path]
    runpy.run_path(path, run_name="__main__")
except BaseException as e:
    site = None
    for fs in traceback.extract_tb(e.__traceback__):
        parts = fs.filename.replace(os.sep, "/").split("/site-packages/")
        if len(parts) == 2 and parts[1].startswith("jax/"):
            site = f"{parts[1]}:{fs.lineno}:{fs.name}"
    text = str(e)
    first = text.splitlines()[0] if text.strip() else ""
    callback = None
    if first.startswith("INTERNAL: CpuCallback error"):  # (the error a host callback raised, inside)
        errors = [l for l in text.splitlines() if re.match(r"^[A-Za-z_][\w.]*(Error|Exception)\b.*:", l)]
        callback = errors[-1] if errors else None
    res.update(outcome="raises", error_class=type(e).__name__, message=first, raise_site=site,
               callback_error=callback)
print(mark + json.dumps(res), flush=True)
"""
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def _portable(text: str) -> str:
    """A message as any checkout prints it: addresses and this checkout's path left out (JAX names
    the example's file in its messages)."""
    return _ADDRESS.sub("0x...", text.replace(str(REPO), "<repo>"))


def run_one(python: str, path: Path, timeout: float) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(JAX_PLATFORMS="cpu", PYTHONDONTWRITEBYTECODE="1", TF_CPP_MIN_LOG_LEVEL="1")
    with tempfile.TemporaryDirectory(prefix="release-message-") as tmp:
        try:
            proc = subprocess.run(["nice", "-n", "19", python, "-c", WRAPPER, str(path), MARK], cwd=tmp, env=env,
                                  capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return {"outcome": "timeout", "error_class": None, "message": None, "raise_site": None,
                    "callback_error": None}
    for line in proc.stdout.splitlines():
        if line.startswith(MARK):
            res = json.loads(line[len(MARK):])
            for key in ("message", "callback_error"):
                if res.get(key):
                    res[key] = _portable(res[key])
            return res
    return {"outcome": "crashed", "error_class": None, "message": (proc.stderr.strip().splitlines() or [""])[-1],
            "raise_site": None, "callback_error": None}


def as_pinned(res: dict, raises: tuple[str, str] | None) -> bool:
    if raises is None or res["outcome"] != "raises":
        return False
    cls, pattern = raises
    return res["error_class"] == cls and re.search(pattern, res["message"] or "") is not None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jax", required=True, help="release, e.g. 0.10.2")
    parser.add_argument("--python", help="interpreter with that release (default: .oracle-env-X)")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per example")
    parser.add_argument("-j", "--jobs", type=int, default=2, choices=(1, 2))
    parser.add_argument("--code", action="append", help="only these rules' examples (a partial rerun)")
    parser.add_argument("--out", type=Path,
                        help="folder to write jax-X.json to (default: tests/data/releases/messages)")
    opts = parser.parse_args()
    # (absolute, not resolved: each example runs in a directory of its own, and a venv's python
    # is a link that must stay the venv's)
    python = os.path.abspath(opts.python or REPO / f".oracle-env-{opts.jax}" / "bin" / "python")
    probe = subprocess.run([python, "-c", "import jax, sys; print(jax.__version__, '%d.%d' % sys.version_info[:2])"],
                           capture_output=True, text=True, check=True, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    jax_version, python_version = probe.stdout.split()
    if jax_version != opts.jax:
        raise SystemExit(f"{python} has jax {jax_version}, not {opts.jax}")
    # (beside the corpora's label folders, not in them: those hold one file per shared corpus)
    out = (opts.out or REPO / "tests" / "data" / "releases" / "messages") / f"jax-{opts.jax}.json"
    # A partial rerun keeps the other rules' runs and replaces these rules' own (examples renamed
    # or removed since go with them).
    kept = json.loads(out.read_text())["cases"] if out.is_file() and opts.code else {}
    cases = {key: run for key, run in kept.items() if run["code"] not in (opts.code or ())}
    # (an example kept for one release, `# jax: X`, is that release's: not run under the others)
    todo = [(rule, example) for rule in sorted(default_rule_set(), key=lambda r: r.code)
            if not opts.code or rule.code in opts.code for example in examples_for(rule.code).invalid
            if example.jax in (None, opts.jax)]
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        runs = {pool.submit(run_one, python, Path(example.path), opts.timeout): (rule, example)
                for rule, example in todo}
        for done in concurrent.futures.as_completed(runs):
            (rule, example), res = runs[done], done.result()
            key = str(Path(example.path).relative_to(REPO / "server" / "pallas_lsp" / "kinds"))
            cases[key] = dict(res, code=rule.code, record=rule.record, as_pinned=as_pinned(res, example.raises))
            print(f"{key}: {res['outcome']} {res['error_class'] or ''} {(res['message'] or '')[:80]}", flush=True)
    summary = {"examples": len(cases), "raises": sum(c["outcome"] == "raises" for c in cases.values()),
               "as_pinned": sum(c["as_pinned"] for c in cases.values())}
    header = {"release": opts.jax, "jax": jax_version, "python": python_version, "platform": "cpu",
              "date": datetime.date.today().isoformat(),
              "command": f"scripts/collect_release_messages.py --jax {opts.jax}", "summary": summary}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"header": header, "cases": dict(sorted(cases.items()))}, indent=1, sort_keys=True)
                   + "\n")
    print(f"jax {opts.jax}: {summary} -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
