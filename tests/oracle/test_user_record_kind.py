"""Under real JAX: the kind a user added as data (tests/rules/test_user_record_kind.py) is
a real failure where the data rule says, and its data fix leaves code that runs clean."""
from __future__ import annotations

import pytest

from tests.rules.test_user_record_kind import ERROR_LINE, PROGRAM, _fixed_program

from .conftest import Program

pytestmark = pytest.mark.oracle


def test_under_jax_the_program_fails_as_the_record_says_and_the_fix_runs_clean(oracle):
    failed = oracle.result(Program("reduce_rows.py", PROGRAM.read_text()))
    assert (failed.outcome, failed.error_class) == ("raises", "NotImplementedError"), failed.describe()
    assert failed.first_line == "run_scoped_p with collective axes is not supported"
    assert {ERROR_LINE - 1, ERROR_LINE} & set(failed.traceback_lines), failed.traceback_lines
    fixed = oracle.result(Program("reduce_rows_fixed.py", _fixed_program()))
    assert fixed.outcome == "clean", fixed.describe()
