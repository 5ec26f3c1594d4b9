"""What following imports across the workspace adds to an edit, next to single-file analysis.

    .venv/bin/python benchmarks/cross_module.py                       # the fixture workspace, scaled up
    .venv/bin/python benchmarks/cross_module.py --path /path/to/jax --file tests/pallas/x.py

For each target file, side by side in one run:
  cold  - a fresh workspace program and an empty parse cache: the first analysis of the file
  warm  - one edit (a line typed in the file): single-file re-analysis vs workspace re-analysis
Prints medians over --repeat runs and the difference (what cross-module costs per edit).
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from pallas_lsp.analysis import module as module_mod
from pallas_lsp.rules import default_engine
from pallas_lsp.analysis.program import Program, read_file

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "workspaces" / "kernels_ws"


def scaled_fixture(copies: int) -> Path:
    """The fixture workspace plus ``copies`` extra helper/kernel/test module triples."""
    d = Path(tempfile.mkdtemp(prefix="pallas-xmod-"))
    ws = d / "ws"
    shutil.copytree(FIXTURE, ws)
    for i in range(copies):
        (ws / "pkg" / f"helpers_{i}.py").write_text(
            "from jax.experimental import pallas as pl\nfrom jax.experimental.pallas import mosaic_gpu as plgpu\n\n"
            f"def barrier_{i}():\n    s = pl.get_global(plgpu.SemaphoreType.REGULAR)\n    pl.semaphore_signal(s)\n")
        (ws / "pkg" / f"kernels_{i}.py").write_text(
            "import jax\nfrom jax.experimental import pallas as pl\n"
            f"from .helpers_{i} import barrier_{i}\n\n"
            f"def kernel_{i}(x_ref, o_ref):\n    barrier_{i}()\n    o_ref[...] = x_ref[...]\n\n"
            f"def build_{i}(shape, interpret=False):\n"
            f"    return pl.pallas_call(kernel_{i}, out_shape=jax.ShapeDtypeStruct(shape, 'float32'),"
            " interpret=interpret)\n")
        (ws / "tests" / f"test_k{i}.py").write_text(
            f"from pkg.kernels_{i} import build_{i}\n\ndef test_{i}():\n    build_{i}((8,), interpret=True)\n")
    return ws


def measure(root: Path, target: Path, repeat: int) -> dict[str, list[float]]:
    engine = default_engine()
    out: dict[str, list[float]] = {k: [] for k in ("cold_single", "cold_workspace", "warm_single", "warm_workspace")}
    base = read_file(str(target)) or ""
    for r in range(repeat):
        # cold
        module_mod.clear_cache()
        t = time.perf_counter()
        engine.analyse(base, str(target))
        out["cold_single"].append(time.perf_counter() - t)
        module_mod.clear_cache()
        texts: dict[str, str] = {}
        prog = Program(root, read=lambda p: texts.get(p) or read_file(p))
        t = time.perf_counter()
        engine.analyse_in(prog, str(target))
        out["cold_workspace"].append(time.perf_counter() - t)
        # warm: one edit, then both re-analyses of the same new text
        for k in range(5):
            edited = base + f"\n# edit {r}.{k}\n"
            t = time.perf_counter()
            engine.analyse(edited, str(target))
            out["warm_single"].append(time.perf_counter() - t)
            texts[str(target)] = edited
            t = time.perf_counter()
            prog.forget(str(target))
            engine.analyse_in(prog, str(target))
            out["warm_workspace"].append(time.perf_counter() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", help="a workspace root (default: the fixture workspace, scaled)")
    ap.add_argument("--file", action="append", help="file(s) under --path to edit")
    ap.add_argument("--copies", type=int, default=50, help="extra module triples in the scaled fixture")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    if args.path:
        root = Path(args.path).resolve()
        targets = [root / f for f in (args.file or [])]
    else:
        root = scaled_fixture(args.copies)
        targets = [root / "pkg" / "sync.py", root / "tests" / "test_kernels.py", root / "pkg" / "kernels_0.py"]
    files = sum(1 for _ in root.rglob("*.py"))
    print(f"workspace {root} ({files} Python files), {args.repeat} repeats, medians in ms")
    print(f"{'file':<40} {'cold 1-file':>11} {'cold wksp':>10} {'+cold':>8} {'edit 1-file':>12} "
          f"{'edit wksp':>10} {'+edit':>8}")
    for target in targets:
        m = {k: statistics.median(v) * 1000 for k, v in measure(root, target, args.repeat).items()}
        print(f"{str(target.relative_to(root)):<40} {m['cold_single']:>11.1f} {m['cold_workspace']:>10.1f} "
              f"{m['cold_workspace'] - m['cold_single']:>8.1f} {m['warm_single']:>12.1f} "
              f"{m['warm_workspace']:>10.1f} {m['warm_workspace'] - m['warm_single']:>8.1f}")


if __name__ == "__main__":
    main()
