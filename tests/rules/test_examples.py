"""Each rule's own VALID/INVALID examples (Fixit-style) are its tests."""
import pytest

from pallas_lsp.rules import analyse
from pallas_lsp.rules import RULE_CLASSES

CASES_INVALID = [(cls, i, ex) for cls in RULE_CLASSES for i, ex in enumerate(cls.INVALID)]
CASES_VALID = [(cls, i, ex) for cls in RULE_CLASSES for i, ex in enumerate(cls.VALID)]


def _id(case):
    cls, i, _ = case
    return f"{cls.code}-{i}"


def test_every_rule_has_examples_and_a_record():
    from pallas_lsp.records import default_store

    store = default_store()
    for cls in RULE_CLASSES:
        assert cls.VALID and cls.INVALID, cls.code
        assert store.by_slug(cls.record) is not None, cls.record
        assert cls.__doc__ and cls.summary


def test_rule_codes_and_names_are_unique():
    assert len({c.code for c in RULE_CLASSES}) == len(RULE_CLASSES)
    assert len({c.name for c in RULE_CLASSES}) == len(RULE_CLASSES)


@pytest.mark.parametrize("case", CASES_INVALID, ids=[_id(c) for c in CASES_INVALID])
def test_invalid_example_is_flagged_once_on_its_line(case):
    cls, _, ex = case
    result = analyse(ex.code, "example.py")
    mine = [f for f in result.findings if f.code == cls.code]
    assert [f.span.line for f in mine] == [ex.error_line()], [f.message for f in result.findings]
    assert mine[0].record == cls.record
    assert not [f for f in result.findings if f.code != cls.code and f.record is not None]


@pytest.mark.parametrize("case", CASES_VALID, ids=[_id(c) for c in CASES_VALID])
def test_valid_example_is_not_flagged(case):
    cls, _, ex = case
    result = analyse(ex.code, "example.py")
    assert [f for f in result.findings if f.record is not None] == []


CASES_FIXED = [(cls, i, ex) for cls in RULE_CLASSES for i, ex in enumerate(cls.INVALID) if ex.fixes]


@pytest.mark.parametrize("case", CASES_FIXED, ids=[_id(c) for c in CASES_FIXED])
def test_declared_fixes_are_offered_and_remove_the_finding(case):
    from pallas_lsp.analysis.edits import apply_edits

    cls, _, ex = case
    (finding,) = [f for f in analyse(ex.code, "example.py").findings if f.code == cls.code]
    titles = [f.title for f in finding.fixes]
    for title in ex.fixes:
        assert title in titles, titles
        fix = finding.fixes[titles.index(title)]
        fixed = apply_edits(ex.code, fix.edits)
        assert fixed != ex.code
        after = analyse(fixed, "example.py")
        assert not after.syntax_errors, fixed
        assert [f for f in after.findings if f.record is not None] == [], fixed
