"""Deeply nested expressions: what Python refuses is one quick PAL900, what Python compiles is
analysed, and nothing takes the process down (libcst's native parser recursed past the stack:
SIGSEGV; 1,000 nested calls cost it 2.3 GB and 31 s). Every run is in a subprocess bounded in
time and address space, so a regression fails instead of taking the machine."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from fuzz.hostile_shapes import ACCEPTED, REFUSED
from tests.conftest import CORPUS

BASIC = (CORPUS / "get_global_interpret_true_basic.py").read_text()  # one PAL001 at line 9
MEMORY_LIMIT = 1536 * 1024 * 1024

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS as used here is a Linux fact")


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _run(code: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout,
                          preexec_fn=_limit_memory)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    return proc


ANALYSE = textwrap.dedent("""
    import json, sys, time, threading
    from pallas_lsp.rules import analyse
    text = open(sys.argv[1]).read()
    out = {}
    def run():
        t = time.perf_counter()
        r = analyse(text, sys.argv[1])
        out["seconds"] = time.perf_counter() - t
        out["findings"] = [(f.code, f.span.line, f.message) for f in r.findings]
    if sys.argv[2] == "thread":  # as the server's worker: a platform whose threads get 512 KiB
        from pallas_lsp.analysis.module import start_thread
        threading.stack_size(512 * 1024)
        start_thread(run, "worker").join()
    else:
        run()
    print(json.dumps(out))
""")


def _document(tmp_path: Path, block: str) -> Path:
    p = tmp_path / "hostile.py"
    p.write_text(BASIC + "\n\n" + block + "\n\ndef later():\n    return 1\n")
    return p


def _analyse(path: Path, where: str) -> dict:
    return json.loads(_run(ANALYSE, str(path), where).stdout)


@pytest.mark.parametrize("where", ["main", "thread"])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_python_refuses_is_one_quick_pal900(tmp_path, name, where):
    got = _analyse(_document(tmp_path, REFUSED[name]()), where)
    assert got["seconds"] < 5, got["seconds"]
    codes = [(c, line) for c, line, _ in got["findings"]]
    assert ("PAL001", 9) in codes, got  # the other block keeps its finding
    errors = [m for c, _, m in got["findings"] if c == "PAL900"]
    assert len(errors) == 1, errors
    if name != "indentation":
        assert "nested too deeply to analyse" in errors[0], errors


@pytest.mark.parametrize("where", ["main", "thread"])
@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_what_python_compiles_gets_no_false_pal900(tmp_path, name, where):
    block = ACCEPTED[name]()
    if sys.version_info[:2] == (3, 11):
        compile(block, "<shape>", "exec")  # (the shape is valid Python for the interpreter running it)
    got = _analyse(_document(tmp_path, block), where)
    assert got["seconds"] < 10, got["seconds"]
    assert [c for c, _, _ in got["findings"]] == ["PAL001"], got["findings"]


def test_nesting_inside_a_kernel_keeps_its_findings(tmp_path):
    body = "    pl.semaphore_signal(sem)\n"
    deep = "    y = " + "lambda: " * 500 + "pl.get_global(plgpu.SemaphoreType.REGULAR)\n"
    p = tmp_path / "kernel.py"
    p.write_text(BASIC.replace(body, body + deep))
    got = _analyse(p, "thread")
    assert [c for c, _, _ in got["findings"]] == ["PAL001"], got["findings"]


def test_newer_syntax_nested_within_limits_reaches_libcst_on_a_stack_of_its_own(tmp_path):
    # Python 3.11 refuses the PEP 701 f-string, so libcst decides; 190 nested brackets in a
    # 512 KiB worker thread would overflow libcst's recursion there.
    block = 'msg = f"{"a"}" + ' + "(" * 190 + "1" + ")" * 190
    got = _analyse(_document(tmp_path, block), "thread")
    assert [c for c, _, _ in got["findings"]] == ["PAL001"], got["findings"]


CHECK = textwrap.dedent("""
    import subprocess, sys
    p = subprocess.run([sys.executable, "-m", "pallas_lsp", "check", "--output-format", "json", *sys.argv[1:]],
                       capture_output=True, text=True, timeout=120)
    sys.stdout.write(p.stdout); sys.stderr.write(p.stderr); sys.exit(0 if p.returncode in (0, 1) else p.returncode)
""")


@pytest.mark.parametrize("jobs", [[], ["-j", "2"]])
def test_check_and_its_workers_report_and_go_on(tmp_path, jobs):
    # (Each mentions Pallas: a module that does not is not analysed at all, so never parsed.)
    pallas = "from jax.experimental import pallas as pl\n"
    for name in ("parens", "lists", "calls", "unclosed"):
        (tmp_path / f"{name}.py").write_text(pallas + REFUSED[name]() + "\n")
    (tmp_path / "good.py").write_text(BASIC)
    (tmp_path / "lambdas.py").write_text(pallas + ACCEPTED["lambdas"]() + "\n")
    proc = _run(CHECK, *jobs, str(tmp_path), timeout=150)
    data = json.loads(proc.stdout)
    items = data if isinstance(data, list) else data.get("findings", data.get("results", []))
    by_file = {}
    for f in items:
        by_file.setdefault(Path(f.get("path") or f.get("filename") or f.get("file")).name, []).append(f.get("code"))
    assert by_file.get("good.py") == ["PAL001"], by_file
    for name in ("parens", "lists", "calls", "unclosed"):
        assert by_file.get(f"{name}.py") == ["PAL900"], by_file
    assert "lambdas.py" not in by_file, by_file


def test_server_stays_up_and_other_documents_keep_their_diagnostics():
    from tests.robustness.rawclient import RawClient

    c = RawClient(memory_limit=2 * MEMORY_LIMIT)
    try:
        c.initialize(pull=True)
        good = "file:///tmp/deep_good.py"
        c.open(good, BASIC)
        assert [d["code"] for d in c.diagnostics(good)] == ["PAL001"]
        for i, name in enumerate(sorted(REFUSED)):
            uri = f"file:///tmp/deep_{name}.py"
            c.open(uri, REFUSED[name]() + "\n")
            codes = [d["code"] for d in c.diagnostics(uri, timeout=30)]
            assert codes == ["PAL900"], (name, codes)
        assert c.alive()
        assert [d["code"] for d in c.diagnostics(good)] == ["PAL001"]
    finally:
        rc = c.close()
    assert rc == 0


def test_newer_syntax_too_large_for_libcst_is_not_handed_to_it(tmp_path):
    # A PEP 701 f-string (Python 3.11 refuses it) in front of a 2,000-term chain: libcst took
    # 9 s on such a chain (5,000 terms: over a minute). Not asked; the finding says why.
    block = 'msg = f"{"a"}" + ' + " + ".join(["1"] * 2000)
    got = _analyse(_document(tmp_path, block), "thread")
    assert got["seconds"] < 5, got["seconds"]
    errors = [m for c, _, m in got["findings"] if c == "PAL900"]
    assert ("PAL001", 9) in [(c, line) for c, line, _ in got["findings"]]
    if sys.version_info < (3, 12):
        assert len(errors) == 1 and "too large to check against newer syntax" in errors[0], errors
    else:
        assert errors == []
