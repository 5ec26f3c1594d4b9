#!/usr/bin/env python3
"""Process start -> `initialize` answered, for each server, N interleaved starts: wall time and
the CPU the server process used up to its answer (from /proc; steadier than wall time on a
busy machine). Same raw client as lsp_latency.py.

    .bench-venv/bin/python benchmarks/lsp_startup.py --starts 5 --server ours --server ruff
    .bench-venv/bin/python benchmarks/lsp_startup.py --server ours \\
        --server "before=env PYTHONPATH=/tmp/before/server .bench-venv/bin/python -m pallas_lsp serve"
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lsp_latency as L  # noqa: E402


async def start_once(spec: L.ServerSpec, root: Path, logdir: Path) -> tuple[float, float | None]:
    sess = L.Session(spec, root, 60.0, logdir, "startup")
    try:
        wall = await sess.start()
        return wall, sess.init_cpu_ms
    finally:
        await sess.close()


async def amain(args: argparse.Namespace) -> int:
    specs = {}
    for item in args.server or ["ours", "ruff"]:
        name, eq, cmd = item.partition("=")
        if not eq:
            cmd, init, _ = L.DEFAULT_SERVERS[name]
        else:
            init = None
        specs[name] = L.ServerSpec(name, L.resolve_command(cmd), init, 0.0)
    L.compile_package()
    tmp = Path(tempfile.mkdtemp(prefix="pallas-lsp-startup-"))
    got: dict[str, list[tuple[float, float | None]]] = {k: [] for k in specs}
    for _ in range(args.starts):
        for name, spec in specs.items():  # interleaved: every server sees the same load
            got[name].append(await start_once(spec, tmp, tmp))
    for name, runs in got.items():
        walls = [w for w, _ in runs]
        cpus = [c for _, c in runs if c is not None]
        print(f"{name:<8} initialize: wall median {statistics.median(walls):8.1f} ms "
              f"(min {min(walls):.1f}), CPU median {statistics.median(cpus) if cpus else float('nan'):7.1f} ms; "
              f"walls {[round(w) for w in walls]}, CPU {[round(c) for c in cpus]}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", action="append", metavar="NAME[=CMD]",
                    help="a server (known names: " + ", ".join(L.DEFAULT_SERVERS) + "); default ours and ruff")
    ap.add_argument("--starts", type=int, default=5, help="starts per server (default 5)")
    return asyncio.run(amain(ap.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
