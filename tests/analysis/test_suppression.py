"""Suppression comments: one parser for the engine and the "Ignore PALxxx on this line" fix."""
import pytest

from pallas_lsp.rules import analyse
from pallas_lsp.analysis.edits import apply_edits
from pallas_lsp.analysis.fixes import suppression_fix
from pallas_lsp.analysis.suppression import find_suppression
from tests.conftest import CORPUS

BASIC = (CORPUS / "get_global_interpret_true_basic.py").read_text()
LINE = "    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)"


def _pal001(text):
    return [f for f in analyse(text).findings if f.code == "PAL001"]


@pytest.mark.parametrize("comment", ["# PALLAS-LSP: IGNORE[PAL002]", "# Pallas-Lsp: Ignore[PAL002]",
                                     "#pallas-lsp:ignore[PAL002]", "# pallas-lsp: ignore[ PAL002 ]"])
def test_fix_extends_an_existing_comment_in_any_letter_case(comment):
    assert LINE in BASIC
    text = BASIC.replace(LINE, f"{LINE}  {comment}")
    (finding,) = _pal001(text)  # PAL002 on the line does not hide PAL001
    line_text = text.splitlines()[finding.span.line - 1]
    fix = suppression_fix(line_text, finding.span.line, finding)
    fixed = apply_edits(text, fix.edits)
    new_line = fixed.splitlines()[finding.span.line - 1]
    assert new_line.lower().count("pallas-lsp") == 1, new_line  # extended, not a second comment
    assert find_suppression(new_line).codes == ("PAL002", "PAL001")
    assert _pal001(fixed) == []


def test_fix_adds_a_comment_when_there_is_none():
    (finding,) = _pal001(BASIC)
    fix = suppression_fix(LINE + "\n", finding.span.line, finding)
    fixed = apply_edits(BASIC, fix.edits)
    assert f"{LINE}  # pallas-lsp: ignore[PAL001]" in fixed
    assert _pal001(fixed) == []


def test_engine_reads_codes_in_any_case_and_reports_unknown_ones():
    text = BASIC.replace(LINE, f"{LINE}  # PALLAS-LSP: IGNORE[pal001, NOPE1]")
    found = analyse(text).findings
    assert not [f for f in found if f.code == "PAL001"]
    assert [f.message for f in found if f.code == "PAL901"] == ["Unknown pallas-lsp code `NOPE1` in ignore comment"]
    bare = BASIC.replace(LINE, f"{LINE}  # Pallas-LSP: Ignore")
    assert not [f for f in analyse(bare).findings if f.code == "PAL001"]


def test_parser_columns():
    s = find_suppression("x = 1  # PALLAS-LSP: IGNORE[A, B] trailing")
    assert s.codes == ("A", "B") and "x = 1  # PALLAS-LSP: IGNORE[A, B] trailing"[s.codes_start:s.codes_end] == "A, B"
    assert find_suppression("x = 1  # pallas-lsp: ignore").codes is None
    assert find_suppression("x = 1  # nothing here") is None


@pytest.mark.parametrize("where", ["lead", "member", "between", "last", "none"])
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_the_index_finds_a_comment_anywhere_without_searching_the_whole_text(where, newline):
    # (Each block's answer is kept with its parse; the text is not searched on each keystroke.)
    from pallas_lsp.analysis.module import ModuleIndex
    from pallas_lsp.analysis.suppression import may_hold_suppression

    comment = {w: "# PALLAS-LSP: ignore[PAL001]" if w == where else "" for w in ("lead", "member", "between", "last")}
    lines = [comment["lead"], "import jax", "", "", "class K:", "    x = 1", "    " + comment["member"],
             "    def f(self):", "        return 1", "", comment["between"], "", "y = 2", comment["last"]]
    text = newline.join(lines)
    index = ModuleIndex(text, None)
    assert index.may_hold_suppression() == may_hold_suppression(text) == (where != "none")
