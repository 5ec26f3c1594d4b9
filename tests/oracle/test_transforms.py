"""Under real JAX: the transformation programs of tests/analysis/test_transforms.py run clean
when the analyser reports nothing, and raise the error of the reported record otherwise."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from pallas_lsp.rules import default_rule_set
from tests.analysis.test_transforms import CASES, expected, program

from .conftest import Program

pytestmark = pytest.mark.oracle

RECORD_OF = {r.code: r.record_data for r in default_rule_set() if getattr(r, "record_data", None) is not None}


@dataclass(frozen=True)
class Case:
    name: str

    def oracle_programs(self) -> list[Program]:
        return [Program(f"transforms_{self.name}.py", program(self.name))]


@pytest.mark.parametrize("case", [Case(n) for n in sorted(CASES)], ids=sorted(CASES))
def test_the_transformation_cases_are_what_jax_does(case: Case, oracle) -> None:
    src = program(case.name)
    (prog,) = case.oracle_programs()
    res = oracle.result(prog)
    want = expected(src)
    if not want:
        assert res.outcome == "clean", res.describe()
        return
    (code, _line), = want
    rec = RECORD_OF[code]
    assert res.outcome == "raises", res.describe()
    assert res.error_class == rec.error_class and rec.message_pattern.fullmatch(res.first_line or ""), res.describe()
