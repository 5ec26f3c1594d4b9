"""scripts/typecheck's ratchet, on fabricated mypy outputs (running mypy itself is scripts/test's
job): counting per module, failing on any increase or any new module with errors, and an update
that refuses to raise a count unless told to."""
import importlib.machinery
import importlib.util
import json
import sys

import pytest

from tests.conftest import ROOT


def load_typecheck():
    loader = importlib.machinery.SourceFileLoader("typecheck_script", str(ROOT / "scripts" / "typecheck"))
    spec = importlib.util.spec_from_loader("typecheck_script", loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (dataclasses look their module up there)
    loader.exec_module(module)
    return module


typecheck = load_typecheck()

OUTPUT = """\
server/pallas_lsp/cli.py:194: error: Incompatible types in assignment  [assignment]
server/pallas_lsp/cli.py:196: error: Invalid index type "Path"  [index]
server/pallas_lsp/cli.py:196: note: See https://mypy.readthedocs.io/en/stable/
server/pallas_lsp/lsp/__init__.py:3: error: Module has no attribute "x"  [attr-defined]
server/pallas_lsp/analysis/module.py:12:5: error: Argument 1 has incompatible type  [arg-type]
Found 4 errors in 3 files (checked 72 source files)
"""


def test_errors_are_counted_per_module_and_notes_are_not_errors():
    assert typecheck.count_errors(OUTPUT) == {
        "pallas_lsp.analysis.module": 1, "pallas_lsp.cli": 2, "pallas_lsp.lsp": 1}


def test_counts_within_the_baseline_pass_and_a_decrease_is_reported():
    baseline = {"pallas_lsp.analysis.module": 1, "pallas_lsp.cli": 3, "pallas_lsp.lsp": 1}
    comparison = typecheck.compare(typecheck.count_errors(OUTPUT), baseline)
    assert comparison.ok
    assert comparison.under == {"pallas_lsp.cli": (3, 2)}
    assert any("--update" in line for line in comparison.report())


def test_one_more_error_in_one_module_fails_even_when_the_total_fell():
    baseline = {"pallas_lsp.analysis.module": 5, "pallas_lsp.cli": 1, "pallas_lsp.lsp": 1}
    comparison = typecheck.compare(typecheck.count_errors(OUTPUT), baseline)
    assert not comparison.ok
    assert comparison.over == {"pallas_lsp.cli": (1, 2)}


def test_a_module_missing_from_the_baseline_may_have_no_errors():
    baseline = {"pallas_lsp.analysis.module": 1, "pallas_lsp.cli": 2}
    comparison = typecheck.compare(typecheck.count_errors(OUTPUT), baseline)
    assert comparison.over == {"pallas_lsp.lsp": (0, 1)}


def test_update_lowers_and_drops_but_refuses_to_raise_unless_allowed():
    counts = typecheck.count_errors(OUTPUT)
    new, _ = typecheck.updated_baseline(counts, {"pallas_lsp.cli": 9, "pallas_lsp.lsp": 1,
                                                 "pallas_lsp.analysis.module": 1, "pallas_lsp.gone": 4}, False)
    assert new == counts  # lowered to today's counts, the module without errors dropped
    refused, comparison = typecheck.updated_baseline(counts, {"pallas_lsp.cli": 1}, False)
    assert refused is None and set(comparison.over) == {"pallas_lsp.cli", "pallas_lsp.lsp",
                                                       "pallas_lsp.analysis.module"}
    forced, _ = typecheck.updated_baseline(counts, {"pallas_lsp.cli": 1}, True)
    assert forced == counts


@pytest.mark.parametrize("update, allow, baseline, expected_rc, written", [
    (False, False, {"pallas_lsp.cli": 2, "pallas_lsp.lsp": 1, "pallas_lsp.analysis.module": 1}, 0, None),
    (False, False, {"pallas_lsp.cli": 2, "pallas_lsp.lsp": 1}, 1, None),
    (True, False, {"pallas_lsp.cli": 2, "pallas_lsp.lsp": 1}, 1, None),
    (True, True, {"pallas_lsp.cli": 2, "pallas_lsp.lsp": 1}, 0,
     {"pallas_lsp.analysis.module": 1, "pallas_lsp.cli": 2, "pallas_lsp.lsp": 1}),
])
def test_the_command_line_exit_status_and_the_file_it_writes(tmp_path, update, allow, baseline, expected_rc, written):
    saved, path = tmp_path / "mypy.txt", tmp_path / "baseline.json"
    saved.write_text(OUTPUT)
    path.write_text(json.dumps(baseline))
    argv = ["--mypy-output", str(saved), "--baseline", str(path)]
    argv += ["--update"] * update + ["--allow-increase"] * allow
    assert typecheck.main(argv) == expected_rc
    assert json.loads(path.read_text()) == (written if written is not None else baseline)


def test_the_committed_baseline_names_modules_of_the_package():
    baseline = json.loads((ROOT / "scripts" / "mypy-baseline.json").read_text())
    assert baseline and all(isinstance(n, int) and n > 0 for n in baseline.values())
    for module in baseline:
        relative = module.replace(".", "/")
        assert (ROOT / "server" / f"{relative}.py").exists() or (ROOT / "server" / relative / "__init__.py").exists(), \
            f"{module} is gone: run scripts/typecheck --update"
