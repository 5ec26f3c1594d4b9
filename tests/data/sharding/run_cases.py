"""Lowers every case in cases/ for TPU on this CPU under 8 forced host devices, with each jax
release given, and writes what happened to labels.json (never edit that file by hand).

    python3 tests/data/sharding/run_cases.py .oracle-env-0.10.2/bin/python .oracle-env/bin/python

Each case defines ``lower()``: its jitted function traced and lowered with
``lowering_platforms=("tpu",)`` in the context ``main()`` calls it in. A case's ``# FAIL`` line
is the launch that raises (none: the case is expected to lower).
"""
from __future__ import annotations

import glob
import importlib.util
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEVICES = 8


def run_in_child(paths: list[str]) -> dict:
    """(In the child, under one jax.) Lower each case; what happened, by file."""
    import jax

    out = {"jax": jax.__version__, "devices": len(jax.devices()), "cases": {}}
    for path in paths:
        name = os.path.basename(path)
        spec = importlib.util.spec_from_file_location(name[:-3], path)
        try:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            module.lower()
            got = {"outcome": "lowers"}
        except Exception as e:  # noqa: BLE001 -- any error is the label
            got = {"outcome": "raises", "error_class": type(e).__name__,
                   "message": (str(e).splitlines() or [""])[0]}
        out["cases"][name] = got
    return out


def fail_lines(path: str) -> list[int]:
    with open(path) as f:
        return [i for i, line in enumerate(f, 1) if "# FAIL" in line]


def main(pythons: list[str]) -> None:
    paths = sorted(glob.glob(os.path.join(HERE, "cases", "*.py")))
    env = dict(os.environ, JAX_PLATFORMS="cpu",
               XLA_FLAGS=f"--xla_force_host_platform_device_count={DEVICES}")
    labels: dict = {"how": "jax.jit(...).trace(...).lower(lowering_platforms=('tpu',)) on the CPU, "
                           f"{DEVICES} forced host devices (run_cases.py)",
                    "releases": [], "cases": {}}
    for python in pythons:
        child = subprocess.run([python, __file__, "--child", *paths], env=env, capture_output=True,
                               text=True, check=True)
        got = json.loads(child.stdout.strip().splitlines()[-1])
        labels["releases"].append(got["jax"])
        for name, rec in got["cases"].items():
            entry = labels["cases"].setdefault(f"cases/{name}", {"fail_lines": fail_lines(
                os.path.join(HERE, "cases", name)), "by_release": {}})
            entry["by_release"][got["jax"]] = rec
    with open(os.path.join(HERE, "labels.json"), "w") as f:
        json.dump(labels, f, indent=1, sort_keys=True)
        f.write("\n")
    for name, entry in sorted(labels["cases"].items()):
        print(name, {r: (v["outcome"], v.get("error_class", "")) for r, v in entry["by_release"].items()})


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(run_in_child(sys.argv[2:])))
    else:
        main(sys.argv[1:])
