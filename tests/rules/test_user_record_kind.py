"""A kind added purely as data: a records file with a detection section, given with
``--records``, gets its diagnostic, its quick fix and ``explain`` without any Python (the
server's diagnostic and hover: tests/lsp/test_user_record_kind.py)."""
from __future__ import annotations

import json
import subprocess

from tests.conftest import DATA, pallas_cli

KIND = DATA / "records" / "user_kind"
RECORD = KIND / "run_scoped_collective_axes.json"
PROGRAM = KIND / "reduce_rows.py"
ERROR_LINE = next(i for i, t in enumerate(PROGRAM.read_text().splitlines(), 1) if t.rstrip().endswith("# error"))


def _check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(pallas_cli() + ["check", *args], capture_output=True, text=True, timeout=120)


def test_the_record_alone_declares_a_rule_check_reports():
    proc = _check("--records", str(RECORD), "--output-format", "json", str(PROGRAM))
    assert proc.returncode == 1, proc.stderr
    (f,) = [f for f in json.loads(proc.stdout) if f["code"] == "PAL190"]
    assert f["record"] == "team-run-scoped-collective-axes-tpu-interpret"
    assert f["line"] == ERROR_LINE
    # The words come from the record: its error class and message, and its headline template.
    assert "JAX raises NotImplementedError: run_scoped_p with collective axes is not supported" in f["message"]
    assert f["message"].startswith("`pl.run_scoped(..., collective_axes=...)` cannot run in TPU interpret mode")


def test_without_the_record_there_is_no_such_rule():
    proc = _check("--output-format", "json", str(PROGRAM))
    assert all(f["code"] != "PAL190" for f in json.loads(proc.stdout or "[]"))
    unknown = _check("--select", "PAL190", str(PROGRAM))
    assert unknown.returncode == 2 and "unknown rule PAL190" in unknown.stderr
    assert _check("--records", str(RECORD), "--select", "PAL190", str(PROGRAM)).returncode == 1


def test_rules_lists_the_data_rule_and_explain_names_it():
    rules = subprocess.run(pallas_cli() + ["rules", "--format", "json", "--records", str(RECORD)],
                           capture_output=True, text=True, timeout=60)
    row = next(r for r in json.loads(rules.stdout) if r["code"] == "PAL190")
    assert row["kind"] == "data" and row["record_loaded"]
    expl = subprocess.run(pallas_cli() + ["explain", "--format", "json", "--records", str(RECORD),
                                          "NotImplementedError: run_scoped_p with collective axes is not supported"],
                          capture_output=True, text=True, timeout=60)
    assert expl.returncode == 0, expl.stderr
    hit = next(e for e in json.loads(expl.stdout) if e["slug"] == "team-run-scoped-collective-axes-tpu-interpret")
    assert hit["rules"] == ["PAL190"]


def test_a_malformed_detection_section_names_file_and_field_and_the_record_still_loads(tmp_path):
    bad = json.loads(RECORD.read_text())
    bad["record"]["detection"]["construct"]["where"][0]["present"] = "yes"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    proc = _check("--records", str(path), "--output-format", "json", str(PROGRAM))
    assert f"{path}: record.record.detection.construct.where[0].present: " in proc.stderr
    assert "the record loads without its detection section" in proc.stderr
    assert all(f["code"] != "PAL190" for f in json.loads(proc.stdout))  # no rule; the record is still there:
    expl = subprocess.run(pallas_cli() + ["explain", "--records", str(path),
                                          "run_scoped_p with collective axes is not supported"],
                          capture_output=True, text=True, timeout=60)
    assert "team-run-scoped-collective-axes-tpu-interpret" in expl.stdout


def _fixed_program() -> str:
    """The program with the data fix applied, as a client applies the quick fix."""
    from pallas_lsp.records import RecordStore, load_records_path
    from pallas_lsp.rules import default_rule_set
    from pallas_lsp.analysis import Engine

    records, problems = load_records_path(RECORD)
    assert not problems
    store = RecordStore(records)
    result = Engine(default_rule_set(store.records)).analyse(PROGRAM.read_text(), str(PROGRAM))
    (f,) = [f for f in result.findings if f.code == "PAL190"]
    (fix,) = f.fixes
    assert fix.title.startswith("Drop `collective_axes=`") and not fix.safe
    lines = PROGRAM.read_text().splitlines(keepends=True)
    for e in sorted(fix.edits, key=lambda e: (e.span.line, e.span.col), reverse=True):
        start = sum(len(t) for t in lines[:e.span.line - 1]) + e.span.col
        end = sum(len(t) for t in lines[:e.span.end_line - 1]) + e.span.end_col
        text = "".join(lines)
        text = text[:start] + e.new_text + text[end:]
        lines = text.splitlines(keepends=True)
    return "".join(lines)


def test_the_data_fix_removes_the_keyword_and_the_finding(tmp_path):
    fixed = _fixed_program()
    assert "collective_axes" not in fixed
    compile(fixed, "fixed.py", "exec")
    path = tmp_path / "reduce_rows.py"
    path.write_text(fixed)
    assert _check("--records", str(RECORD), str(path)).returncode == 0
