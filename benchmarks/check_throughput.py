#!/usr/bin/env python3
"""Batch throughput: ``pallas-lsp check`` against ``fixit lint`` and ``ruff check``.

The input files (``--path DIR``, a jax checkout for example, and/or ``--generate N``
generated kernel files) are first copied into a temp dir, Python files only, so every
tool sees the same files and no project's own configuration. Each tool then runs

* cold: a fresh process after its own result cache is cleared (ruff's cache dir; fixit
  and pallas-lsp keep no cache on disk, so for them cold is simply the first run);
* warm: the same command again straight after (ruff reads its cache, the OS page
  cache and bytecode are hot for all).

For every run: wall time, files/s, CPU time (user+sys, which shows a tool's parallelism:
ruff uses threads, fixit a process pool with one worker per core, pallas-lsp one process
unless ``-j``), peak RSS of the largest process (``ru_maxrss`` from ``os.wait4`` on that
child: per child, so no deltas of ``RUSAGE_CHILDREN`` are needed) and the peak summed RSS
of its whole process tree (sampled from /proc every 20 ms).

``--linearity`` builds 1x, 2x and 4x copies of the input set and times
``pallas-lsp check`` on each. The copies are made distinct (a comment appended to every
logical line) so the in-memory block parse cache cannot make a copy free;
``--identical-copies`` keeps them byte-identical to show that effect.

    .bench-venv/bin/python benchmarks/check_throughput.py --path /tmp/jaxsrc
    .bench-venv/bin/python benchmarks/check_throughput.py --generate 100 --linearity
"""
from __future__ import annotations

import argparse
import io
import json
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tokenize
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import genkernels  # noqa: E402
from common import code_state, compile_package, describe_code_state, resolve  # noqa: E402

SKIP_DIRS = {"__pycache__", "node_modules", "site-packages", "venv", "env", "build", "dist"}
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


# ---------------------------------------------------------------------------------------
# Input staging
# ---------------------------------------------------------------------------------------

def _python_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    out = []
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS
                         and not (Path(dirpath) / d / "pyvenv.cfg").exists())
        out += [Path(dirpath) / f for f in sorted(files) if f.endswith(".py") and not f.startswith(".")]
    return out


def stage(args: argparse.Namespace, dest: Path) -> list[Path]:
    dest.mkdir(parents=True)
    staged: list[Path] = []
    for k, raw in enumerate(args.path or []):
        src = Path(raw).resolve()
        if not src.exists():
            sys.exit(f"no such path: {raw}")
        base = src.parent if src.is_file() else src
        for f in _python_files(src):
            to = dest / f"src{k}" / f.relative_to(base)
            to.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, to)
            staged.append(to)
    if args.generate:
        staged += genkernels.write_files(dest / "generated", args.generate, args.lines, seed=args.seed)
    if args.max_files and len(staged) > args.max_files:
        for extra in staged[args.max_files:]:
            extra.unlink()
        staged = staged[:args.max_files]
    return staged


def distinct_copy(text: str, tag: str) -> str:
    """The same program with a comment after every logical line, so no block's text repeats."""
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return text + f"\n# {tag}\n"
    lines = text.splitlines(keepends=True)
    marks: dict[int, int] = {}
    for t in toks:
        if t.type == tokenize.NEWLINE and t.start[0] <= len(lines):
            marks[t.start[0]] = t.start[1]
    for row, col in marks.items():
        line = lines[row - 1]
        lines[row - 1] = line[:col] + f"  # {tag}" + line[col:]
    out = "".join(lines)
    return out if marks else out + f"\n# {tag}\n"  # comments only


def make_copies(src: Path, dest: Path, k: int, identical: bool) -> int:
    files = [f for f in src.rglob("*.py")]
    n = 0
    for i in range(k):
        for f in files:
            to = dest / f"copy{i}" / f.relative_to(src)
            to.parent.mkdir(parents=True, exist_ok=True)
            text = f.read_text(encoding="utf-8", errors="replace")
            to.write_text(text if identical or i == 0 else distinct_copy(text, f"copy {i}"), encoding="utf-8")
            n += 1
    return n


# ---------------------------------------------------------------------------------------
# Measuring one process
# ---------------------------------------------------------------------------------------

def _tree_rss_kb(pid: int) -> int:
    total, todo, seen = 0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            total += int(Path(f"/proc/{p}/statm").read_text().split()[1]) * PAGE_KB
            for task in os.listdir(f"/proc/{p}/task"):
                todo += [int(c) for c in Path(f"/proc/{p}/task/{task}/children").read_text().split()]
        except (OSError, ValueError, IndexError):
            pass
    return total


def measure(argv: list[str], cwd: Path, timeout: float, log: Path) -> dict[str, Any]:
    with open(log, "wb") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=err, start_new_session=True)
        peak_tree = 0
        timed_out = False
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            peak_tree = max(peak_tree, _tree_rss_kb(p.pid))
            if time.perf_counter() - t0 > timeout:
                timed_out = True
                os.killpg(p.pid, signal.SIGKILL)
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.02)
        wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return {"wall_s": wall, "user_s": ru.ru_utime, "sys_s": ru.ru_stime, "cpu_s": ru.ru_utime + ru.ru_stime,
            "maxrss_mb": ru.ru_maxrss / 1024, "tree_peak_mb": max(peak_tree, ru.ru_maxrss) / 1024,
            "rc": p.returncode, "timed_out": timed_out}


# ---------------------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------------------

def tool_commands(args: argparse.Namespace, target: Path, cache: Path) -> dict[str, dict]:
    tools: dict[str, dict] = {}
    wanted = args.tool or ["ours", "fixit", "ruff"]
    for name in wanted:
        if name == "ours":
            tools["ours"] = {"argv": [resolve("pallas-lsp"), "check", str(target)], "ok": {0, 1}, "cache": None}
            for j in args.ours_jobs or []:
                tools[f"ours-j{j}"] = {"argv": [resolve("pallas-lsp"), "check", "-j", str(j), str(target)],
                                       "ok": {0, 1}, "cache": None}
        elif name == "ruff":
            rc = cache / "ruff"
            tools["ruff"] = {"argv": [resolve("ruff"), "check", "--cache-dir", str(rc), str(target)],
                             "ok": {0, 1}, "cache": rc}
        elif name == "fixit":
            tools["fixit"] = {"argv": [resolve("fixit"), "lint", str(target)], "ok": {0, 1}, "cache": None}
        else:
            sys.exit(f"unknown tool {name!r} (ours, ruff, fixit)")
    return tools


def _median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def _summ(runs: list[dict], nfiles: int) -> dict:
    wall = _median(runs, "wall_s")
    return {"wall_s": wall, "files_per_s": nfiles / wall if wall else None, "cpu_s": _median(runs, "cpu_s"),
            "maxrss_mb": max(r["maxrss_mb"] for r in runs), "tree_peak_mb": max(r["tree_peak_mb"] for r in runs),
            "runs": len(runs)}


def _check_rc(name: str, r: dict, ok: set[int], log: Path) -> str | None:
    if r["timed_out"]:
        return f"{name}: timed out"
    if r["rc"] not in ok:
        tail = log.read_text(errors="replace").strip().splitlines()[-5:]
        return f"{name}: exit {r['rc']}: " + " | ".join(tail)
    return None


def run_throughput(args, tools: dict[str, dict], target: Path, nfiles: int, tmp: Path) -> dict:
    out: dict[str, Any] = {}
    print(f"\n== throughput: {nfiles} files, {args.repeat} cold+warm pair(s) per tool (medians)")
    print(f"{'tool':<9} {'phase':<5} {'wall s':>8} {'files/s':>9} {'cpu s':>8} {'cpu/wall':>8} "
          f"{'peak RSS MB':>11} {'tree RSS MB':>11}")
    for name, t in tools.items():
        cold, warm, errors = [], [], []
        for r in range(args.repeat):
            if t["cache"] is not None:
                shutil.rmtree(t["cache"], ignore_errors=True)
            for phase, bucket in (("cold", cold), ("warm", warm)):
                log = tmp / f"{name}-{phase}-{r}.stderr.log"
                res = measure(t["argv"], target, args.timeout, log)
                bucket.append(res)
                err = _check_rc(name, res, t["ok"], log)
                if err:
                    errors.append(err)
        out[name] = {"command": shlex.join(t["argv"]), "version": t.get("version"),
                     "cold": _summ(cold, nfiles), "warm": _summ(warm, nfiles),
                     "raw": {"cold": cold, "warm": warm}, "errors": errors}
        for phase, runs in (("cold", cold), ("warm", warm)):
            s = out[name][phase]
            bad = [r for r in runs if r["timed_out"] or r["rc"] not in t["ok"]]
            flag = ""
            if bad:
                flag = "  FAILED (timeout)" if bad[0]["timed_out"] else f"  FAILED (exit {bad[0]['rc']})"
            print(f"{name:<9} {phase:<5} {s['wall_s']:8.2f} {s['files_per_s']:9.1f} {s['cpu_s']:8.2f} "
                  f"{s['cpu_s'] / s['wall_s']:8.2f} {s['maxrss_mb']:11.1f} {s['tree_peak_mb']:11.1f}{flag}",
                  flush=True)
        for e in sorted(set(errors)):
            print(f"   ! {e}")
    base = out.get("ours")
    if base:
        def ratio(v: dict, phase: str) -> str:
            return f"{v[phase]['wall_s'] / base[phase]['wall_s']:.2f}x"
        print("   wall-time ratio to ours (cold / warm): " + ", ".join(
            f"{n} {ratio(v, 'cold')} / {ratio(v, 'warm')}" for n, v in out.items() if n != "ours" and not v["errors"]))
    return out


def run_linearity(args, src: Path, nfiles: int, tmp: Path) -> dict:
    ours = resolve("pallas-lsp")
    extra = ["-j", str(args.linearity_jobs)] if args.linearity_jobs else []
    kind = "identical" if args.identical_copies else "distinct"
    print(f"\n== linearity: `pallas-lsp check{' ' + ' '.join(extra) if extra else ''}` on 1x, 2x, 4x "
          f"{kind} copies of the {nfiles} files ({args.repeat} run(s) each, medians)")
    # Fixed cost: start-up and imports, on one tiny file.
    tiny = tmp / "tiny"
    tiny.mkdir()
    (tiny / "one.py").write_text("x = 1\n")
    start = [measure([ours, "check", *extra, str(tiny)], tiny, args.timeout, tmp / "tiny.log")
             for _ in range(args.repeat)]
    startup = _median(start, "wall_s")
    print(f"   start-up (one 1-line file): {startup:.2f} s")
    print(f"{'copies':>6} {'files':>6} {'wall s':>8} {'files/s':>9} {'ms/file':>8} {'peak RSS MB':>11} "
          f"{'wall/(k*1x)':>11} {'net/(k*net1x)':>13}")
    rows = []
    for k in (1, 2, 4):
        d = tmp / f"lin{k}"
        n = make_copies(src, d, k, args.identical_copies)
        runs = [measure([ours, "check", *extra, str(d)], d, args.timeout, tmp / f"lin{k}.log")
                for _ in range(args.repeat)]
        errs = {e for r in runs if (e := _check_rc(f"{k}x", r, {0, 1}, tmp / f"lin{k}.log"))}
        s = _summ(runs, n)
        s.update(copies=k, files=n)
        rows.append(s)
        one = rows[0]
        scale = s["wall_s"] / (k * one["wall_s"])
        net1 = one["wall_s"] - startup
        net_scale = (s["wall_s"] - startup) / (k * net1) if net1 > 0 else float("nan")
        s.update(scaling=scale, net_scaling=net_scale)
        print(f"{k:>6} {n:>6} {s['wall_s']:8.2f} {s['files_per_s']:9.1f} {1000 * s['wall_s'] / n:8.1f} "
              f"{s['maxrss_mb']:11.1f} {scale:11.2f} {net_scale:13.2f}", flush=True)
        for e in errs:
            print(f"   ! {e}")
        shutil.rmtree(d, ignore_errors=True)
    return {"startup_s": startup, "copies": kind, "jobs": args.linearity_jobs, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--path", action="append", help="a folder (or file) of Python files; repeatable")
    ap.add_argument("--generate", type=int, metavar="N", help="also N generated kernel files")
    ap.add_argument("--lines", type=int, default=600, help="lines per generated file (default 600)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-files", type=int, help="use at most this many input files")
    ap.add_argument("--tool", action="append", choices=["ours", "fixit", "ruff"],
                    help="tools to run; repeatable (default all three)")
    ap.add_argument("--ours-jobs", action="append", type=int, metavar="N",
                    help="also run `pallas-lsp check -j N` as tool ours-jN; repeatable")
    ap.add_argument("--repeat", type=int, default=1, help="cold+warm pairs per tool (default 1)")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per process (default 1800)")
    ap.add_argument("--linearity", action="store_true", help="also time pallas-lsp check on 1x, 2x, 4x copies")
    ap.add_argument("--linearity-only", action="store_true", help="only the linearity mode")
    ap.add_argument("--linearity-jobs", type=int, help="pass -j N to pallas-lsp check in the linearity mode")
    ap.add_argument("--identical-copies", action="store_true",
                    help="linearity copies byte-identical (shows the parse cache) instead of distinct")
    ap.add_argument("--json", metavar="OUT", help="write raw results as JSON")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir")
    args = ap.parse_args(argv)
    if not args.path and not args.generate:
        ap.error("give --path DIR and/or --generate N")

    tmp = Path(tempfile.mkdtemp(prefix="pallas-check-bench-"))
    src = tmp / "input"
    files = stage(args, src)
    if not files:
        sys.exit("no Python files in the input")
    nlines = sum(f.read_bytes().count(b"\n") for f in files)
    nbytes = sum(f.stat().st_size for f in files)
    print(f"input: {len(files)} files, {nlines} lines, {nbytes / 1e6:.1f} MB staged in {src}")
    state = code_state()
    compile_package()
    print(describe_code_state(state))
    result: dict[str, Any] = {"argv": sys.argv, "code": state, "files": len(files), "lines": nlines,
                              "bytes": nbytes}
    rc = 0
    if not args.linearity_only:
        tools = tool_commands(args, src, tmp / "caches")
        for name, t in tools.items():
            try:
                ver = subprocess.run([t["argv"][0], "--version"], capture_output=True, text=True,
                                     timeout=60).stdout.strip().splitlines()[0]
            except (OSError, subprocess.SubprocessError, IndexError):
                ver = "?"
            t["version"] = ver
            print(f"   {name} ({ver}): {shlex.join(t['argv'])}")
        result["throughput"] = run_throughput(args, tools, src, len(files), tmp)
        if any(v["errors"] for v in result["throughput"].values()):
            rc = 1
    if args.linearity or args.linearity_only:
        result["linearity"] = run_linearity(args, src, len(files), tmp)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1, default=str))
        print(f"\nraw results: {args.json}")
    if args.keep:
        print(f"kept: {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
