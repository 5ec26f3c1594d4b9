"""Legal but hostile files: how long ``check`` and one edit take on them (issue 15).

    .venv/bin/python benchmarks/hostile_shapes.py            # every shape, default sizes
    .venv/bin/python benchmarks/hostile_shapes.py launches --sizes 5000 20000

Shapes:
  launches    one kernel launched N times, one small function per launch (20,000: 2.6 MB)
  one_body    one kernel launched N times from one function's body (one block of N statements)
  statements  N one-line statements (65,000: about 4.7 MB): the cost of one edit in the middle
  nesting     every nesting shape of fuzz/hostile_shapes.py, next to a real finding

``check`` runs as a subprocess (bounded by --timeout); an edit is timed in-process with the
server's incremental engine (the second analysis of the same path after a one-line edit).
Figures are wall-clock seconds on this machine; compare sizes (a near-linear cost doubles
when N doubles), not absolute numbers across machines.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

KERNEL = '''import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def add_one_kernel(x_ref, o_ref):
    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
    pl.semaphore_signal(sem)
    o_ref[...] = x_ref[...] + 1.0


'''
LAUNCH = "pl.pallas_call(add_one_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)"


def launches(n: int) -> str:
    """One kernel, ``n`` launches, each in a function of its own."""
    return KERNEL + "".join(f"def run{i}(x):\n    return {LAUNCH}\n\n\n" for i in range(n))


def one_body(n: int) -> str:
    """One kernel, ``n`` launches in one function's body."""
    return KERNEL + "def main(x):\n" + "".join(f"    y{i} = {LAUNCH}\n" for i in range(n))


def statements(n: int) -> str:
    """``n`` one-line statements of about 72 characters each."""
    return "import jax.numpy as jnp\n" + "".join(
        f"value_{i:06d} = jnp.zeros((8, 128), dtype=jnp.float32) + {i}  # filler\n" for i in range(n))


def time_check(path: Path, timeout: float) -> tuple[float, int, str]:
    t = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-m", "pallas_lsp", "check", "--output-format", "json", str(path)],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return timeout, -1, "timed out"
    return time.perf_counter() - t, p.returncode, p.stdout


def time_edit(text: str, path: str) -> tuple[float, float]:
    """(first analysis, analysis after a one-line edit in the middle) in seconds."""
    from pallas_lsp.rules import default_engine

    engine = default_engine(incremental=True)  # (as the language server builds it)
    t = time.perf_counter()
    engine.analyse(text, path)
    first = time.perf_counter() - t
    lines = text.splitlines(keepends=True)
    mid = len(lines) // 2
    lines[mid] = lines[mid].rstrip("\n") + "  # edited\n"
    t = time.perf_counter()
    engine.analyse("".join(lines), path)
    return first, time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("shapes", nargs="*", default=["launches", "one_body", "statements", "nesting"])
    ap.add_argument("--sizes", type=int, nargs="*", default=None)
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args(argv)
    defaults = {"launches": [5000, 20000], "one_body": [5000, 20000], "statements": [16250, 65000]}
    gens = {"launches": launches, "one_body": one_body, "statements": statements}
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes:
            if shape == "nesting":
                from fuzz.hostile_shapes import ACCEPTED, REFUSED

                for name, gen in [*(("refused_" + k, g) for k, g in REFUSED.items()),
                                  *(("accepted_" + k, g) for k, g in ACCEPTED.items())]:
                    path = Path(tmp) / f"{name}.py"
                    path.write_text(KERNEL + gen() + "\n")
                    secs, rc, out = time_check(path, args.timeout)
                    codes = sorted({c for c in ("PAL001", "PAL900") if c in out})
                    print(f"nesting {name:32s} check {secs:7.2f} s  rc={rc} {','.join(codes)}", flush=True)
                continue
            for n in args.sizes or defaults[shape]:
                text = gens[shape](n)
                path = Path(tmp) / f"{shape}_{n}.py"
                path.write_text(text)
                secs, rc, out = time_check(path, args.timeout)
                found = out.count('"code"')
                first, edit = time_edit(text, str(path))
                print(f"{shape:10s} n={n:6d} {len(text) / 1e6:5.2f} MB  check {secs:7.2f} s  rc={rc} "
                      f"findings={found}  first analysis {first:6.2f} s  one edit {edit:6.2f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
