"""``pallas-lsp check --fix`` / ``--unsafe-fixes`` / ``--diff`` (ruff's conventions): what is
written, what is reported, the exit codes, and that a fixed text that would not parse is never
written."""
from __future__ import annotations

import contextlib
import io
import shutil
import subprocess

import pytest

from pallas_lsp.analysis import fixes as fixes_module
from pallas_lsp.analysis.findings import Finding, Fix, Severity, TextEdit
from pallas_lsp.analysis.module import Span
from pallas_lsp.checker import apply_fixes, choose_fixes
from pallas_lsp.cli import main
from tests.conftest import CORPUS, pallas_cli

SAFE_CASE = "dynamic_grid_jit_arg_gpu_params.py"  # static_argnames: a safe fix, and nothing left
UNSAFE_ONLY_CASE = "get_global_helper_one_level.py"  # only "run compiled": an unsafe fix
CLEAN_CASE = "get_global_helper_never_called_clean.py"


def run(*args, cwd=None):
    return subprocess.run(pallas_cli() + list(args), capture_output=True, text=True, cwd=cwd, timeout=120)


def copy(tmp_path, name, as_name=None):
    dest = tmp_path / (as_name or name)
    shutil.copyfile(CORPUS / name, dest)
    return dest


def test_fix_writes_the_safe_fix_and_exits_0_when_nothing_is_left(tmp_path):
    path = copy(tmp_path, SAFE_CASE)
    proc = run("check", "--no-config", "--fix", str(path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    fixed = path.read_text()
    assert '@functools.partial(jax.jit, static_argnames=("num_steps",))\ndef double(x, num_steps):' in fixed
    assert "import functools\n" in fixed
    assert proc.stderr.strip().endswith("Fixed 1 problem (0 remaining)")
    assert run("check", "--no-config", str(path)).returncode == 0


def test_unsafe_fixes_only_with_the_flag(tmp_path):
    path = copy(tmp_path, UNSAFE_ONLY_CASE)
    before = path.read_text()
    proc = run("check", "--no-config", "--fix", str(path))
    assert proc.returncode == 1 and path.read_text() == before
    assert "PAL001" in proc.stdout  # what is left is reported as usual
    assert proc.stderr.strip().endswith("Fixed 0 problems (1 remaining)")
    proc = run("check", "--no-config", "--fix", "--unsafe-fixes", str(path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    fixed = path.read_text()
    # "Run compiled" removes interpret=; compiled, the get_global of a GMEM semaphore lowers.
    assert "interpret=" not in fixed and "pl.get_global" in fixed
    assert proc.stderr.strip().endswith("Fixed 1 problem (0 remaining)")


def test_diff_prints_the_changes_and_writes_nothing(tmp_path):
    path = copy(tmp_path, SAFE_CASE)
    before = path.read_text()
    proc = run("check", "--no-config", "--diff", str(path))
    assert proc.returncode == 1
    assert path.read_text() == before
    assert proc.stdout.startswith(f"--- {path}\n+++ {path}\n@@ ")
    assert "\n-@jax.jit\n+@functools.partial(jax.jit, static_argnames=(\"num_steps\",))\n" in proc.stdout
    assert "\n+import functools\n" in proc.stdout
    assert "PAL004" not in proc.stdout  # the diff alone, no findings
    assert "Would fix 1 problem" in proc.stderr
    # Nothing to change: no diff, exit 0 (even with findings no fix resolves).
    for name in (CLEAN_CASE, UNSAFE_ONLY_CASE):
        proc = run("check", "--no-config", "--diff", str(copy(tmp_path, name)))
        assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr


def test_workers_build_the_fixes(tmp_path):
    # More than 8 files: checked by worker processes, whose findings bring their fixes.
    paths = [copy(tmp_path, SAFE_CASE, f"case_{i}.py") for i in range(10)]
    proc = run("check", "--no-config", "--fix", "-j", "2", str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert all("static_argnames" in p.read_text() for p in paths)
    assert proc.stderr.strip().endswith("Fixed 10 problems (0 remaining)")


def test_the_file_keeps_its_encoding_and_line_breaks(tmp_path):
    text = (CORPUS / SAFE_CASE).read_text()
    path = tmp_path / "latin.py"
    path.write_bytes(("# -*- coding: latin-1 -*-\n# café\n" + text).replace("\n", "\r\n").encode("latin-1"))
    assert run("check", "--no-config", "--fix", str(path)).returncode == 0
    raw = path.read_bytes()
    assert b"# caf\xe9\r\n" in raw and b"static_argnames" in raw and b"\n" not in raw.replace(b"\r\n", b"")


def _cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(args))
    return rc, out.getvalue(), err.getvalue()


def test_a_fixed_text_that_would_not_parse_is_never_written(tmp_path, monkeypatch):
    path = copy(tmp_path, SAFE_CASE)
    before = path.read_text()
    broken = Fix("break it", (TextEdit(Span(12, 0, 12, 0), "def (\n"),), preferred=True, safe=True)
    monkeypatch.setattr(fixes_module, "fix_candidates", lambda finding, unsafe, fixes=None: [broken])
    rc, out, err = _cli("check", "--no-config", "--fix", str(path))
    assert rc == 1 and path.read_text() == before
    assert "PAL004" in out and err.strip().endswith("Fixed 0 problems (1 remaining)")
    rc, out, _ = _cli("check", "--no-config", "--diff", str(path))
    assert (rc, out) == (0, "")


def _finding(line, fixes):
    return Finding("PAL999", "test", None, Severity.ERROR, "m", Span(line, 0, line, 1),
                   fix_builder=lambda: tuple(fixes))


def _fix(title, span, text, *, safe=True, preferred=False):
    return Fix(title, (TextEdit(span, text),), preferred=preferred, safe=safe)


def test_one_fix_per_finding_safe_first_then_preferred_unsafe_and_no_overlaps():
    unsafe_plain = _fix("unsafe", Span(1, 0, 1, 1), "u", safe=False)
    unsafe_preferred = _fix("unsafe preferred", Span(1, 0, 1, 1), "p", safe=False, preferred=True)
    safe = _fix("safe", Span(1, 0, 1, 1), "s")
    f1 = _finding(1, [unsafe_plain, unsafe_preferred, safe])
    assert choose_fixes([f1], None, unsafe=False) == [safe]
    f2 = _finding(1, [unsafe_plain, unsafe_preferred])
    assert choose_fixes([f2], None, unsafe=False) == []
    assert choose_fixes([f2], None, unsafe=True) == [unsafe_preferred]
    # A second finding whose only fix overlaps the first's is left for the next pass; one that
    # shares an identical edit (the same import) is applied with it.
    overlapping = _finding(2, [_fix("overlaps", Span(1, 0, 1, 1), "o")])
    same_import = Fix("same import", (TextEdit(Span(1, 0, 1, 1), "s"), TextEdit(Span(3, 0, 3, 0), "x")), safe=True)
    chosen = choose_fixes([f1, overlapping, _finding(3, [same_import])], None, unsafe=False)
    assert chosen == [safe, same_import]


def test_apply_fixes_keeps_only_those_that_leave_code_that_parses():
    text = "a = 1\nb = 2\n"
    good = _fix("good", Span(1, 4, 1, 5), "10")
    bad = _fix("bad", Span(2, 4, 2, 5), "(")
    assert apply_fixes(text, [good, bad]) == ("a = 10\nb = 2\n", 1)
    assert apply_fixes(text, [bad]) == (text, 0)
    shared = TextEdit(Span(1, 0, 1, 0), "import x\n")
    f1 = Fix("one", (shared, TextEdit(Span(1, 4, 1, 5), "3")), safe=True)
    f2 = Fix("two", (shared, TextEdit(Span(2, 4, 2, 5), "4")), safe=True)
    assert apply_fixes(text, [f1, f2]) == ("import x\na = 3\nb = 4\n", 2)


@pytest.mark.parametrize("flag", ["--fix", "--diff"])
def test_a_file_that_cannot_be_read_is_reported_not_fixed(tmp_path, flag):
    missing = tmp_path / "broken.py"
    missing.symlink_to(tmp_path / "nowhere.py")
    proc = run("check", "--no-config", flag, str(tmp_path))
    assert "PAL902" in proc.stdout or flag == "--diff"
    assert proc.returncode == (1 if flag == "--fix" else 0)
