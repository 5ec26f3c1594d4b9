"""Each rule's example files (``server/pallas_lsp/kinds/<slug>/examples/<CODE>/``) are its tests:
Python rules and rules declared as data alike."""
from pathlib import Path

import pytest

from pallas_lsp.rules import PythonRule, analyse, default_rule_set
from pallas_lsp.rules.examples import (ExampleError, RuleExamples, example_problems,
                                       examples_for, parse_example)

RULES = list(default_rule_set())


def _examples(rule) -> RuleExamples:
    try:
        return examples_for(rule.code)
    except ExampleError:
        return RuleExamples()  # (test_example_files_are_well_formed names the file)


CASES_INVALID = [(rule, ex) for rule in RULES for ex in _examples(rule).invalid]
CASES_VALID = [(rule, ex) for rule in RULES for ex in _examples(rule).valid]
CASES_FIXED = [(rule, ex) for rule, ex in CASES_INVALID if ex.fixes]


def _id(case):
    rule, ex = case
    return f"{rule.code}-{ex.name}"


def test_example_files_are_well_formed():
    assert example_problems({r.code for r in RULES}) == []


def test_every_rule_has_examples_and_a_record():
    from pallas_lsp.records import default_store

    store = default_store()
    for rule in RULES:
        found = examples_for(rule.code)
        assert found.valid and found.invalid, \
            f"{rule.code}: no valid or no invalid example in its kind folder (kinds/<slug>/examples/{rule.code}/)"
        assert store.by_slug(rule.record) is not None, rule.record
        assert rule.summary, rule.code
        if isinstance(rule, PythonRule):
            assert type(rule).__doc__, rule.code
            assert type(rule).VALID == found.valid and type(rule).INVALID == found.invalid
        else:
            assert rule.documentation, rule.code


def test_rule_codes_and_names_are_unique():
    assert len({r.code for r in RULES}) == len(RULES)
    assert len({r.name for r in RULES}) == len(RULES)


@pytest.mark.parametrize("case", CASES_INVALID, ids=[_id(c) for c in CASES_INVALID])
def test_invalid_example_is_flagged_once_on_its_line(case):
    rule, ex = case
    result = analyse(ex.code, "example.py", **ex.analysis_options())
    mine = [f for f in result.findings if f.code == rule.code]
    assert [f.span.line for f in mine] == [ex.error_line()], [f.message for f in result.findings]
    # The finding's record is the rule's, or (one construct, different errors by context) the
    # record of the error the example raises: a shipped record whose pattern matches it.
    if mine[0].record != rule.record:
        from pallas_lsp.records import default_store

        record = default_store().by_slug(mine[0].record)
        assert record is not None and ex.raises is not None, mine[0].record
        assert record.error_class == ex.raises[0] and record.message_pattern.search(mine[0].actual_error), \
            (mine[0].record, mine[0].actual_error)
    assert not [f for f in result.findings if f.code != rule.code and f.record is not None]


@pytest.mark.parametrize("case", CASES_VALID, ids=[_id(c) for c in CASES_VALID])
def test_valid_example_is_not_flagged(case):
    _, ex = case
    result = analyse(ex.code, "example.py", **ex.analysis_options())
    assert [f for f in result.findings if f.record is not None] == []


@pytest.mark.parametrize("case", CASES_FIXED, ids=[_id(c) for c in CASES_FIXED])
def test_declared_fixes_are_offered_and_remove_the_finding(case):
    from pallas_lsp.analysis.edits import apply_edits

    rule, ex = case
    (finding,) = [f for f in analyse(ex.code, "example.py", **ex.analysis_options()).findings
                  if f.code == rule.code]
    titles = [f.title for f in finding.fixes]
    for title in ex.fixes:
        assert title in titles, titles
        fix = finding.fixes[titles.index(title)]
        fixed = apply_edits(ex.code, fix.edits)
        assert fixed != ex.code
        after = analyse(fixed, "example.py", **ex.analysis_options())
        assert not after.syntax_errors, fixed
        assert [f for f in after.findings if f.record is not None] == [], fixed


# --- the example file format ----------------------------------------------------------------------

PROGRAM = """import jax
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    sem = pl.get_global(1)  # error
"""


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def test_an_example_file_is_read_with_its_header(tmp_path):
    text = ("# pallas-lsp example: invalid\n"
            "# note: A note.\n"
            "# raises: TypeError: No ir_type_handler: (for) aval\n"
            "# fix: First fix (a: b)\n"
            "# fix: Second fix\n"
            "# oracle: run\n" + PROGRAM)
    _write(tmp_path / "PAL150", "invalid_01_taken.py", text)
    _write(tmp_path / "PAL150", "valid_01_clean.py", "# pallas-lsp example: valid\nimport jax\n")
    found = examples_for("PAL150", tmp_path)
    (ex,) = found.invalid
    assert ex.code == text  # line numbers are the file's
    assert ex.note == "A note." and ex.oracle == "run"
    assert ex.raises == ("TypeError", "No ir_type_handler: (for) aval")
    assert ex.fixes == ("First fix (a: b)", "Second fix")
    assert ex.error_line() == 12 and ex.header_lines == 6
    assert ex.program == PROGRAM and ex.name == "invalid_01_taken"
    assert [e.name for e in found.valid] == ["valid_01_clean"] and found.valid[0].raises is None
    assert examples_for("PAL999", tmp_path) == RuleExamples()


@pytest.mark.parametrize("name, text, line, words", [
    ("invalid_1_short.py", "# pallas-lsp example: invalid\n", 1, "is named"),
    ("invalid_01_x.py", "import jax\n", 1, "the first line must be"),
    ("invalid_01_x.py", "# pallas-lsp example: valid\n", 1, "the file name says `invalid`"),
    ("invalid_01_x.py", "# pallas-lsp example: invalid\n# note: n\n" + PROGRAM, 2, "says what JAX raises"),
    ("invalid_01_x.py", "# pallas-lsp example: invalid\n# raises: no colon here\n" + PROGRAM, 2,
     "error class, a colon"),
    ("invalid_01_x.py", "# pallas-lsp example: invalid\n# raises: TypeError: (unclosed\n" + PROGRAM, 2,
     "does not compile"),
    ("invalid_01_x.py", "# pallas-lsp example: invalid\n# raises: TypeError: x\n# fixes: typo\n" + PROGRAM, 3,
     "a header line is"),
    ("invalid_01_x.py", "# pallas-lsp example: invalid\n# note: a\n# note: b\n" + PROGRAM, 3, "given twice"),
    ("invalid_01_x.py", "# pallas-lsp example: invalid\n# raises: E: x\n# oracle: gpu\n" + PROGRAM, 3,
     "`# oracle:` is one of"),
    ("invalid_01_x.py", "# pallas-lsp example: invalid\n# raises: E: x\n# oracle: lower-cuda\n" + PROGRAM, 3,
     "lowers for CUDA"),
    ("invalid_01_x.py", "# pallas-lsp example: invalid\n# raises: E: x\nimport jax\n", 2, "exactly one line"),
    ("invalid_01_x.py", "# pallas-lsp example: invalid\n# raises: E: x\n" + PROGRAM + "y = 1  # error\n", 9,
     "exactly one line"),
    ("invalid_01_x.py", "# pallas-lsp example: invalid\n# raises: E: x\n" + PROGRAM + "def (:\n", 9,
     "not valid Python"),
    ("valid_01_x.py", "# pallas-lsp example: valid\n# fix: Something\nimport jax\n", 2, "belongs to invalid"),
    ("valid_01_x.py", "# pallas-lsp example: valid\n# note:\nimport jax\n", 2, "needs a value"),
    ("valid_01_x.py", "# pallas-lsp example: valid\n" + PROGRAM, 7, "has no `# error` line"),
])
def test_a_malformed_example_file_is_reported_with_its_file_and_line(tmp_path, name, text, line, words):
    path = _write(tmp_path / "PAL150", name, text)
    with pytest.raises(ExampleError) as e:
        parse_example(path)
    assert str(e.value).startswith(f"{path}:{line}: "), str(e.value)
    assert words in str(e.value)
    with pytest.raises(ExampleError, match=words):
        examples_for("PAL150", tmp_path)


def test_a_taken_number_and_a_folder_without_a_rule_are_reported(tmp_path):
    ok = "# pallas-lsp example: valid\nimport jax\n"
    _write(tmp_path / "PAL150", "valid_01_a.py", ok)
    second = _write(tmp_path / "PAL150", "valid_01_b.py", ok)
    _write(tmp_path / "PAL151", "valid_01_a.py", ok)
    problems = example_problems({"PAL150"}, tmp_path)
    assert problems == [f"{second}:1: number 01 is taken by valid_01_a.py",
                        f"{tmp_path / 'PAL151'}: no rule has the code `PAL151`"]
