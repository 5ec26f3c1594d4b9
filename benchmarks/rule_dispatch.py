#!/usr/bin/env python3
"""Rule dispatch does not grow with the number of rules.

Compares the built-in rule set (the four seed rules plus every shipped data kind) with a
45-kind one: the same set padded with data rules, written the way a user adds a kind (a records
file with detection sections), that name APIs Pallas kernels call all the time (``pl.program_id``,
``jnp.dot``, ``pl.ds``, ``pltpu.async_copy``...), so their dispatch hits on nearly every kernel
and their conditions are evaluated, though they never fire. Two measurements, side by side in one
run, alternating between the rule sets so machine noise hits both alike:

* ``engine``: edit -> analysis on the generated 10,000-line file, in process, with the engine
  the server's keystroke worker uses (``incremental=True``);
* ``lsp``: edit -> diagnostics through the real server over stdio (benchmarks/lsp_latency.py's
  client and edit script), one server with default settings, the other with the padding records
  named by the ``records`` setting, as a user would.

    .venv/bin/python benchmarks/rule_dispatch.py                   # both
    .venv/bin/python benchmarks/rule_dispatch.py --only engine --lines 10000 --edits 200
    .venv/bin/python benchmarks/rule_dispatch.py --write-records /tmp/padding.json
"""
from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import genkernels  # noqa: E402
from lsp_latency import Doc, build_script  # noqa: E402

# APIs kernels call constantly: each padding rule names one, so dispatch finds work everywhere.
BUSY_APIS = [
    "jax.experimental.pallas.program_id", "jax.experimental.pallas.num_programs", "jax.experimental.pallas.ds",
    "jax.experimental.pallas.load", "jax.experimental.pallas.store", "jax.experimental.pallas.when",
    "jax.experimental.pallas.run_scoped", "jax.experimental.pallas.cdiv", "jax.experimental.pallas.multiple_of",
    "jax.experimental.pallas.semaphore_signal", "jax.experimental.pallas.semaphore_wait",
    "jax.experimental.pallas.max_contiguous", "jax.experimental.pallas.loop",
    "jax.experimental.pallas.tpu.async_copy", "jax.experimental.pallas.tpu.sync_copy",
    "jax.experimental.pallas.tpu.make_async_copy", "jax.experimental.pallas.tpu.repeat",
    "jax.experimental.pallas.tpu.bitcast", "jax.experimental.pallas.tpu.roll",
    "jax.experimental.pallas.mosaic_gpu.copy_gmem_to_smem", "jax.experimental.pallas.mosaic_gpu.copy_smem_to_gmem",
    "jax.experimental.pallas.mosaic_gpu.barrier_wait", "jax.experimental.pallas.mosaic_gpu.commit_smem",
    "jax.experimental.pallas.mosaic_gpu.wgmma", "jax.experimental.pallas.mosaic_gpu.load",
    "jax.numpy.dot", "jax.numpy.zeros", "jax.numpy.zeros_like", "jax.numpy.sum", "jax.numpy.max",
    "jax.numpy.exp", "jax.numpy.maximum", "jax.numpy.where", "jax.numpy.einsum", "jax.numpy.matmul",
    "jax.numpy.float32", "jax.numpy.arange", "jax.lax.fori_loop", "jax.lax.dot_general",
    "jax.lax.broadcasted_iota", "jax.lax.rsqrt", "jax.lax.select", "jax.lax.cond", "jax.numpy.tanh",
]
assert len(BUSY_APIS) >= 41
TARGET_KINDS = 45


def padding_records(count: int) -> list[dict]:
    """``count`` records with detection sections, one per busy API, that never fire (their
    condition asks for a keyword no call passes)."""
    out = []
    for i in range(count):
        target = BUSY_APIS[i % len(BUSY_APIS)]
        out.append({"record": {
            "id": f"bench{i:04d}", "slug": f"bench-padding-{i:02d}", "schemaVersion": 2,
            "errorMessage": f"benchmark padding kind {i}", "messagePattern": f"benchmark padding kind {i}$",
            "errorClass": "NotImplementedError",
            "detection": {
                "code": f"BEN{i:03d}", "name": f"bench-padding-{i:02d}",
                "construct": {"call": target,
                              "where": [{"argument": {"keyword": "benchmark_never_passed"}, "present": True},
                                        {"argument": {"position": 0}, "equals": "never"}]},
                "modes": ["interpret", "tpu-interpret", "gpu-interpret", "mosaic-gpu", "triton", "tpu", "compiled"],
            }}})
    return out


def rule_sets(records_path: Path, base_kind: str = "seed"):
    """(base, padded): base is the four seed rules ("seed") or the whole built-in set
    ("builtin"); padded is base plus the padding records' rules (45 kinds in all)."""
    from pallas_lsp.analysis import RuleSet
    from pallas_lsp.records import load_records_path
    from pallas_lsp.rules import RULE_CLASSES, default_rule_set
    from pallas_lsp.rules.data import data_rules

    base = RuleSet([cls() for cls in RULE_CLASSES[:4]]) if base_kind == "seed" else default_rule_set()
    records, problems = load_records_path(records_path)
    assert not [p for p in problems if p.severity == "error"], problems
    return base, RuleSet([*base, *data_rules(records)])


def _pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def bench_engine(records_path: Path, lines: int, edits: int, base_kind: str = "seed") -> dict:
    from pallas_lsp.analysis import Engine
    from pallas_lsp.runtime import tune_gc

    tune_gc(batch=False)  # as the server
    base, padded = rule_sets(records_path, base_kind)
    text = genkernels.generate(lines, seed=0)
    script, _ = build_script(text)
    engines = {"base": Engine(base, incremental=True), "padded": Engine(padded, incremental=True)}
    docs = {k: Doc(text) for k in engines}
    times: dict[str, list[float]] = {k: [] for k in engines}
    findings: dict[str, int] = {}
    for k, eng in engines.items():  # open (cold), not timed
        findings[k] = len(eng.analyse(text, f"/bench/{k}.py").findings)
    gc.collect()
    order = list(engines)
    for i in range(edits):
        e = script[i % len(script)]
        for k in (order if i % 2 == 0 else order[::-1]):  # alternate who goes first
            docs[k].apply(e.start, e.end, e.text)
            t0 = time.perf_counter()
            engines[k].analyse(docs[k].text, f"/bench/{k}.py")
            times[k].append((time.perf_counter() - t0) * 1000)
    return {"kinds": {"base": len(base), "padded": len(padded)}, "findings_at_open": findings,
            "p50": {k: statistics.median(v) for k, v in times.items()},
            "p95": {k: _pct(v, 95) for k, v in times.items()}, "edits": edits, "lines": lines}


def bench_lsp(records_path: Path, lines: int, repeat: int) -> str:
    init = json.dumps({"records": [str(records_path)]})
    cmd = [sys.executable, str(HERE / "lsp_latency.py"), "--generate", str(lines), "--repeat", str(repeat),
           "--server", "ours=pallas-lsp serve", "--server", "ours45=pallas-lsp serve",
           "--init-options", f"ours45={init}", "--modes", "pull"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    return proc.stdout + (proc.stderr[-2000:] if proc.returncode else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=10000)
    ap.add_argument("--edits", type=int, default=120)
    ap.add_argument("--repeat", type=int, default=2, help="server processes per configuration (lsp)")
    ap.add_argument("--only", choices=["engine", "lsp"])
    ap.add_argument("--write-records", metavar="PATH", help="write the padding records file and exit")
    ap.add_argument("--base", choices=["seed", "builtin"], default="seed",
                    help="the rule set padded to 45 kinds: the four seed rules (default: dispatch alone, "
                         "the padding never fires) or every built-in rule")
    args = ap.parse_args()
    from pallas_lsp.rules import default_rule_set

    pad = max(0, TARGET_KINDS - (4 if args.base == "seed" else len(default_rule_set())))
    records = padding_records(pad)
    if args.write_records:
        Path(args.write_records).write_text(json.dumps(records, indent=1))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "padding_records.json"
        path.write_text(json.dumps(records))
        if args.only in (None, "engine"):
            r = bench_engine(path, args.lines, args.edits, args.base)
            b, p = r["kinds"]["base"], r["kinds"]["padded"]
            print(f"engine, {r['lines']}-line generated file, {r['edits']} edits each, alternating:")
            print(f"  {b:>2} kinds: edit p50 {r['p50']['base']:.1f} ms, p95 {r['p95']['base']:.1f} ms "
                  f"({r['findings_at_open']['base']} findings)")
            print(f"  {p:>2} kinds: edit p50 {r['p50']['padded']:.1f} ms, p95 {r['p95']['padded']:.1f} ms "
                  f"({r['findings_at_open']['padded']} findings)")
            print(f"  p50 ratio {p} vs {b} kinds: {r['p50']['padded'] / r['p50']['base']:.3f}")
        if args.only in (None, "lsp"):
            print(bench_lsp(path, args.lines, args.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
