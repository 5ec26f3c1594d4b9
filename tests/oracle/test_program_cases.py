"""Under real JAX: the programs of tests/analysis/test_transforms.py, test_hosts.py,
test_hosts_configured.py and test_contexts_setters.py (analysed with ``backends = ["cpu"]``) and
test_contexts_bool_ops.py run clean
when the analyser reports nothing, and raise the error of the reported record otherwise."""
from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import pytest

from pallas_lsp.records import default_store
from pallas_lsp.rules import analyse, default_rule_set
from tests.analysis import (
    test_contexts_bool_ops, test_contexts_setters, test_hosts, test_hosts_configured, test_transforms,
)

from .conftest import Program

pytestmark = pytest.mark.oracle

RECORD_OF = {r.code: r.record_data for r in default_rule_set() if getattr(r, "record_data", None) is not None}
SUITES = {"transforms": test_transforms, "hosts": test_hosts, "hosts_configured": test_hosts_configured,
          "bool_ops": test_contexts_bool_ops, "setters": test_contexts_setters}


def _record_reported(text: str, code: str):
    """The record of the finding a rule written in Python reports (PAL003 names one of two)."""
    (slug,) = {f.record for f in analyse(text, "/tmp/program_case.py").findings if f.code == code}
    return default_store().by_slug(slug)


@dataclass(frozen=True)
class Case:
    suite: str
    name: str

    @property
    def module(self) -> ModuleType:
        return SUITES[self.suite]

    def oracle_programs(self) -> list[Program]:
        return [Program(f"{self.suite}_{self.name}.py", self.module.program(self.name))]


CASES = [Case(s, n) for s, m in SUITES.items() for n in sorted(m.CASES)]


@pytest.mark.parametrize("case", CASES, ids=[f"{c.suite}-{c.name}" for c in CASES])
def test_the_program_cases_are_what_jax_does(case: Case, oracle) -> None:
    (prog,) = case.oracle_programs()
    res = oracle.result(prog)
    want = case.module.expected(case.module.program(case.name))
    if not want:
        assert res.outcome == "clean", res.describe()
        return
    (code, _line), = want
    rec = RECORD_OF.get(code) or _record_reported(prog.text, code)
    assert res.outcome == "raises", res.describe()
    assert res.error_class == rec.error_class and rec.message_pattern.fullmatch(res.first_line or ""), res.describe()


@pytest.mark.parametrize("name", sorted(test_contexts_setters.BUILD_FIXED))
def test_the_build_moved_into_the_force_block_runs_clean(name: str, oracle) -> None:
    """PAL511's fix for a launch built earlier in the function that applies it in the block,
    applied by the analyser itself, then run."""
    fixed = test_contexts_setters.build_fixed(test_contexts_setters.program(name))
    assert fixed is not None
    res = oracle.result(Program(f"setters_{name}_fixed.py", fixed))
    assert res.outcome == "clean", res.describe()
