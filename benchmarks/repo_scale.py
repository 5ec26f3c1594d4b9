"""``pallas-lsp check`` at repository scale, side by side with ``ruff check`` on the same trees.

For each repository given (``--repo PATH``, copied to a temporary folder first, so the input
is never touched and every run starts from the same bytes):

* whole tree: cold (a fresh process, the tool's cache folder removed) and warm (the same
  command again), ``-j 1`` against ``-j 2`` (cold, no cache), peak RSS of each run;
* the full analysis (every module analysed, ``PALLAS_LSP_FULL_ANALYSIS=1``, no cache: what
  ``check`` did before modules were pruned), its time, and whether its findings equal ours;
* one file (``--file REL``, repeatable): cold, warm, and warm after a one-line change to it,
  and whether its findings equal what the whole-tree check gives for it;
* ``--padding K``: the tree again with K copies of the standard library's sources added
  (modules that do not concern Pallas), to show that memory does not grow with them.

Figures are printed as a table and, with ``--json OUT``, written as JSON. Standard library
only; run with any Python ≥ 3.10 (``.bench-venv/bin/python benchmarks/repo_scale.py ...``).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import code_state, compile_package, describe_code_state, resolve  # noqa: E402

OURS = "pallas-lsp"


def run(argv: list[str], cwd: Path, env: dict | None = None) -> dict:
    """One fresh process: wall seconds, peak RSS (MiB), exit code, stdout."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         env={**os.environ, **(env or {})})
    out = p.stdout.read() if p.stdout else b""
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return {"s": round(wall, 3), "rss_mib": round(usage.ru_maxrss / 1024, 1), "rc": p.returncode,
            "out": out.decode("utf-8", "replace")}


def findings(out: str) -> list[tuple]:
    try:
        data = json.loads(out or "[]")
    except ValueError:
        return [("unparsable output",)]
    return sorted((f["path"], f.get("cell"), f["line"], f["column"], f["code"], f["message"]) for f in data)


def ours(tree: Path, *args: str, env: dict | None = None) -> dict:
    return run([resolve(OURS), "check", "--output-format", "json", *args], tree, env)


def ruff(tree: Path, target: str, cache: Path) -> dict:
    # All of ruff's default rules; its own cache in a folder we clear for cold runs.
    return run([resolve("ruff"), "check", "--exit-zero", "--cache-dir", str(cache), target], tree)


def pad(tree: Path, copies: int) -> int:
    """``copies`` copies of this Python's standard library sources under ``_padding/N/``: real
    code that does not concern Pallas (it imports only itself and the stdlib; a copy of the
    repository's own modules would not do: they import the repository's kernels). Returns how
    many files were added."""
    import sysconfig

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    sources = [p for p in stdlib.rglob("*.py") if not any(part in ("site-packages", "test", "tests",
               "idlelib", "lib2to3") for part in p.relative_to(stdlib).parts)]
    added = 0
    for n in range(copies):
        for p in sources:
            dest = tree / "_padding" / str(n) / p.relative_to(stdlib)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, dest)
            added += 1
    return added


def bench_repo(repo: Path, files: list[str], padding: int) -> dict:
    work = Path(tempfile.mkdtemp(prefix="repo-scale-"))
    tree = work / repo.name
    shutil.copytree(repo, tree, symlinks=True, ignore=shutil.ignore_patterns(".git", ".pallas-lsp-cache"))
    cache = tree / ".pallas-lsp-cache"
    ruff_cache = work / "ruff-cache"
    res: dict = {"repo": str(repo), "py_files": sum(1 for _ in tree.rglob("*.py"))}
    try:
        ours(tree, "--no-cache", files[0] if files else ".")  # (file caches of the OS warmed; not timed)
        shutil.rmtree(cache, ignore_errors=True)
        cold = ours(tree, ".")
        warm = ours(tree, ".")
        full = ours(tree, "--no-cache", "-j", "1", ".", env={"PALLAS_LSP_FULL_ANALYSIS": "1"})
        j1 = ours(tree, "--no-cache", "-j", "1", ".")
        j2 = ours(tree, "--no-cache", "-j", "2", ".")
        shutil.rmtree(ruff_cache, ignore_errors=True)
        r_cold = ruff(tree, ".", ruff_cache)
        r_warm = ruff(tree, ".", ruff_cache)
        whole = findings(cold["out"])
        res["whole"] = {
            "cold_s": cold["s"], "warm_s": warm["s"], "cold_rss_mib": cold["rss_mib"],
            "warm_rss_mib": warm["rss_mib"], "full_analysis_s": full["s"], "full_rss_mib": full["rss_mib"],
            "j1_s": j1["s"], "j2_s": j2["s"], "j2_speedup": round(j1["s"] / j2["s"], 2) if j2["s"] else None,
            "ruff_cold_s": r_cold["s"], "ruff_warm_s": r_warm["s"], "findings": len(whole),
            "same_as_full": whole == findings(full["out"]),
            "same_warm": whole == findings(warm["out"]), "same_j2": whole == findings(j2["out"]),
        }
        res["files"] = []
        for rel in files:
            shutil.rmtree(cache, ignore_errors=True)
            f_cold = ours(tree, rel)
            f_warm = ours(tree, rel)
            path = tree / rel
            text = path.read_text()
            path.write_text(text + "\n# a one-line change\n")
            f_edit = ours(tree, rel)
            path.write_text(text)
            shutil.rmtree(ruff_cache, ignore_errors=True)
            rf_cold = ruff(tree, rel, ruff_cache)
            rf_warm = ruff(tree, rel, ruff_cache)
            mine = [f for f in whole if f[0] == rel]
            res["files"].append({
                "file": rel, "cold_s": f_cold["s"], "warm_s": f_warm["s"], "edited_s": f_edit["s"],
                "ruff_cold_s": rf_cold["s"], "ruff_warm_s": rf_warm["s"],
                "same_as_whole_tree": findings(f_cold["out"]) == mine and findings(f_warm["out"]) == mine,
            })
        if padding:
            added = pad(tree, padding)
            shutil.rmtree(cache, ignore_errors=True)
            p_cold = ours(tree, ".")
            res["padded"] = {"added_files": added, "cold_s": p_cold["s"], "cold_rss_mib": p_cold["rss_mib"],
                             "same_findings": findings(p_cold["out"]) == whole}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", action="append", required=True, help="a repository checkout (repeatable)")
    ap.add_argument("--file", action="append", default=[],
                    help="REPO_NAME:REL one file to check alone (repeatable)")
    ap.add_argument("--padding", type=int, default=0, help="copies of the stdlib's sources to add")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    state = code_state()
    compile_package()
    print(describe_code_state(state))
    out = {"code": state, "repos": []}
    for repo in args.repo:
        repo_path = Path(repo).resolve()
        files = [f.split(":", 1)[1] for f in args.file if f.split(":", 1)[0] == repo_path.name]
        r = bench_repo(repo_path, files, args.padding)
        out["repos"].append(r)
        w = r["whole"]
        print(f"\n{repo_path.name} ({r['py_files']} .py files)")
        print(f"  whole tree: cold {w['cold_s']} s ({w['cold_rss_mib']} MiB), warm {w['warm_s']} s; "
              f"full analysis {w['full_analysis_s']} s ({w['full_rss_mib']} MiB); "
              f"-j1 {w['j1_s']} s, -j2 {w['j2_s']} s (x{w['j2_speedup']}); "
              f"ruff cold {w['ruff_cold_s']} s, warm {w['ruff_warm_s']} s")
        print(f"  findings {w['findings']}; same as full analysis: {w['same_as_full']}, "
              f"warm: {w['same_warm']}, -j2: {w['same_j2']}")
        for f in r["files"]:
            print(f"  {f['file']}: cold {f['cold_s']} s, warm {f['warm_s']} s, after a one-line change "
                  f"{f['edited_s']} s; ruff cold {f['ruff_cold_s']} s, warm {f['ruff_warm_s']} s; "
                  f"same as whole tree: {f['same_as_whole_tree']}")
        if "padded" in r:
            p = r["padded"]
            print(f"  +{p['added_files']} non-Pallas files: cold {p['cold_s']} s ({p['cold_rss_mib']} MiB), "
                  f"same findings: {p['same_findings']}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
