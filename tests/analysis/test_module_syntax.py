"""When a block does not parse: which errors libcst (the authority on syntax newer than the
running Python) is asked about, and which are errors for every Python without asking."""
from __future__ import annotations

import pytest

from pallas_lsp.analysis import module
from pallas_lsp.analysis.module import ModuleIndex


@pytest.fixture
def asked(monkeypatch):
    seen: list[str] = []
    real = module._libcst_accepts

    def spy(source: str) -> bool:
        seen.append(source)
        return real(source)

    monkeypatch.setattr(module, "_libcst_accepts", spy)
    return seen


@pytest.mark.parametrize("text", [
    "def f(x):\n    y = (x +\n    return y\n",  # a bracket never closed
    "y = 1)\n",  # unmatched
    "s = 'abc\n",  # a string never ended
    "def f():\n    x = 1\n      y = 2\n",  # an IndentationError
])
def test_errors_no_newer_python_reads_otherwise_are_not_handed_to_libcst(text, asked):
    index = ModuleIndex(text + "\nZ = 0\n", None)
    assert len(index.syntax_errors) == 1 and "newer syntax" not in index.syntax_errors[0].message
    assert asked == []


def test_a_bracket_error_next_to_an_f_string_is_still_asked(asked):
    # (Python 3.12 reads quotes inside an f-string's fields, PEP 701: 3.11 may see a bracket
    # left open where 3.12 sees none.)
    ModuleIndex('x = f"{a}" + (1 +\n', None)
    assert len(asked) == 1
