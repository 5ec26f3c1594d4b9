"""Under real JAX: the programs of tests/rules/test_closed_over_ref_shapes.py. A marked program
raises the marked rule's error, an unmarked one in CASES runs clean, and one in NO_CLAIM fails
with an error that is neither rule's."""
from __future__ import annotations

import pytest

from pallas_lsp.rules import default_rule_set
from tests.analysis.program_cases import expected
from tests.rules import test_closed_over_ref_shapes as shapes

from .conftest import Program

pytestmark = pytest.mark.oracle

RECORDS = {r.code: r.record for r in default_rule_set() if r.code in ("PAL512", "PAL513")}


def _record(code: str):
    from pallas_lsp.records import default_store

    return default_store().by_slug(RECORDS[code])


@pytest.mark.parametrize("name", sorted(shapes.CASES))
def test_each_shape_is_what_jax_does(name: str, oracle) -> None:
    src = shapes.program(name)
    res = oracle.result(Program(f"closed_over_ref_{name}.py", src))
    want = expected(src)
    if not want:
        assert res.outcome == "clean", res.describe()
        return
    ((code, _line),) = want
    rec = _record(code)
    assert res.outcome == "raises", res.describe()
    assert res.error_class == rec.error_class and rec.message_pattern.fullmatch(res.first_line or ""), res.describe()


@pytest.mark.parametrize("name", sorted(shapes.NO_CLAIM))
def test_where_no_claim_is_made_jax_fails_otherwise(name: str, oracle) -> None:
    res = oracle.result(Program(f"closed_over_ref_{name}.py", shapes.program(name)))
    assert res.outcome == "raises", res.describe()
    for code in RECORDS:
        rec = _record(code)
        assert not (res.error_class == rec.error_class and rec.message_pattern.fullmatch(res.first_line or ""))
