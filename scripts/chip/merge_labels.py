#!/usr/bin/env python3
"""Keep a chip run's results as data: merge OUT/labels.json of corpus-tpu's run_tpu.py (run on the
TPU machine over a copy of tests/data/chip/cases) into tests/data/chip/labels.json, and rewrite
line 1 of each case to what the chip did (``chip=raises|clean``, ``interp=``).

Usage: python3 scripts/chip/merge_labels.py RUN_LABELS_JSON --run "2026-12-06 fourth chip run"
A case the run did not reach keeps its old label (or none); nothing here is written by hand.
"""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

CHIP = Path(__file__).resolve().parents[2] / "tests" / "data" / "chip"


def label_of(entry: dict, run: str) -> dict:
    """The stored label of one run entry: the compiled run decides the outcome and what it raised."""
    compiled = entry.get("compiled") or {}
    interpret = entry.get("interpret") or {}
    raises = compiled.get("outcome") == "raises"
    line = compiled.get("case_line") if raises else None
    lines = sorted(set(entry.get("fail_lines") or []) | ({line} if line else set())) if raises else []
    return {
        "outcome": compiled.get("outcome"),
        "error_class": compiled.get("error_class") if raises else None,
        "message": compiled.get("message_first_line") if raises else None,
        "mosaic_reason": compiled.get("mosaic_reason") if raises else None,
        "feature": entry.get("kind") if raises else None,
        "line": line, "lines": lines,
        "raise_site": compiled.get("jax_frame") if raises else None,
        "header_expected": entry.get("expect"),
        "interpret": interpret.get("outcome"),
        "compiled": compiled, "interpret_run": interpret, "run": run,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_labels")
    ap.add_argument("--run", required=True, help="which run this was (kept with each label)")
    args = ap.parse_args(argv)
    run = json.loads(Path(args.run_labels).read_text())
    stored_path = CHIP / "labels.json"
    stored = json.loads(stored_path.read_text())
    for name, entry in sorted(run.items()):
        case = CHIP / "cases" / name
        if not case.is_file() or (entry.get("compiled") or {}).get("outcome") not in ("clean", "raises"):
            print(f"skipped {name}: {'no such case' if not case.is_file() else 'no compiled outcome'}")
            continue
        label = label_of(entry, args.run)
        stored["cases"][f"cases/{name}"] = label
        text = case.read_text()
        first, rest = text.split("\n", 1)
        first = re.sub(r"chip=\w+", f"chip={label['outcome']}", first)
        if label["interpret"] in ("clean", "raises"):
            first = re.sub(r"interp=\w+", f"interp={label['interpret']}", first)
        case.write_text(first + "\n" + rest)
        print(f"{label['outcome']:7} {name}")
    stored["cases"] = dict(sorted(stored["cases"].items()))
    stored_path.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
