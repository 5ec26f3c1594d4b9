"""The rule layer.

Most Pallas errors have the shape "API X cannot run in context Y": such a kind is data,
a detection section of its record (``rules/data.py``). Where data cannot say the condition
(whether a grid entry is static, whether an unused result is dead code), a rule is a small
Python class on the one rule API (``analysis/rule_api.py``): :class:`ApiInContextRule` for a
call of an API, :class:`PythonRule` with ``construct = "launch"`` for a launch property.

Each rule carries VALID and INVALID examples (Fixit-style): they generate its
tests, its documentation page, and the oracle checks against real JAX.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..analysis.findings import Fix, Related
from ..analysis.rule_api import ConstructKind, Hit, Report, Rule


@dataclass(frozen=True)
class Example:
    code: str
    note: str = ""
    # How the oracle runs it: "run" (execute on CPU) or "lower-cuda" (the program itself
    # lowers for CUDA; compiled Mosaic GPU behaviour reproduces on a CPU machine that way).
    oracle: str = "run"
    # For INVALID examples: the 1-based line the finding must be on (marked "# error" if omitted).
    line: int | None = None
    # For INVALID examples: the error JAX raises (class and a regex for the message).
    raises: tuple[str, str] | None = None
    # Quick fix titles that, applied, must leave code JAX runs clean (checked by the oracle).
    fixes: tuple[str, ...] = ()

    def error_line(self) -> int:
        if self.line is not None:
            return self.line
        for i, text in enumerate(self.code.splitlines(), 1):
            if text.rstrip().endswith("# error"):
                return i
        raise ValueError("INVALID example without a '# error' marker or line")


class PythonRule(Rule):
    """A rule written in Python, with its examples (Fixit-style): they generate its tests,
    its documentation page and the oracle checks against real JAX."""

    VALID: ClassVar[list[Example]] = []
    INVALID: ClassVar[list[Example]] = []
    # JAX versions on which every example's prediction was checked by running it.
    verified_on: ClassVar[tuple[str, ...]] = ("0.12.0.1",)


class ApiInContextRule(PythonRule):
    """A call of one API that fails when a kernel reaching it runs in one of ``modes``:
    ``actual_error`` says what JAX raises in ``hit.context`` (None: it runs clean)."""

    construct: ConstructKind = "call"

    def matches(self, hit: Hit) -> bool:
        return True

    def actual_error(self, hit: Hit) -> str | None:
        raise NotImplementedError

    def headline(self, hit: Hit) -> str:
        return f"`{self.label}` cannot run in {hit.context.words}"

    def related(self, hit: Hit) -> list[Related]:
        return []

    def offer_fixes(self, hit: Hit) -> list[Fix]:
        return []

    def check(self, hit: Hit) -> Report | None:
        if not self.matches(hit):
            return None
        error = self.actual_error(hit)
        if not error:
            return None
        return Report(error, self.headline(hit), related=tuple(self.related(hit)))

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        return self.offer_fixes(hit)
