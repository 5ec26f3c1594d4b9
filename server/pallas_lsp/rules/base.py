"""The rule layer.

Most Pallas errors have the shape "API X cannot run in context Y": such a kind is data,
a detection section of its record (``rules/data.py``). Where data cannot say the condition
(whether a grid entry is static, whether an unused result is dead code), a rule is a small
Python class on the one rule API (``analysis/rule_api.py``): :class:`ApiInContextRule` for a
call of an API, :class:`PythonRule` with ``construct = "launch"`` for a launch property.

Each rule has VALID and INVALID examples (Fixit-style), one runnable program per file in
``kinds/<slug>/examples/<CODE>/`` (``rules/examples.py`` reads them): they generate its tests, its
documentation page, and the oracle checks against real JAX.
"""
from __future__ import annotations

from functools import lru_cache
from typing import ClassVar

from ..analysis.findings import Fix, Related
from ..analysis.rule_api import ConstructKind, Hit, Report, Rule
from .examples import VERIFIED_ON, Example, examples_for


class _FolderExamples:
    """``VALID`` / ``INVALID`` of a rule class: its example files, read on first use."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __get__(self, obj: object, owner: type) -> tuple[Example, ...]:
        found = examples_for(owner.code)
        return found.valid if self.kind == "valid" else found.invalid


@lru_cache(maxsize=None)
def record_wordings(slug: str) -> dict[str, frozenset[str]]:
    """A shipped record's wordings: message -> the releases that print it (for a rule whose
    verdict depends on the release, read from the record rather than written again in code)."""
    from ..records import builtin_records

    record = next((r for r in builtin_records()[0] if r.slug == slug), None)
    return {w.message: frozenset(w.releases) for w in record.wordings} if record is not None else {}


class PythonRule(Rule):
    """A rule written in Python, with its examples (Fixit-style, files in
    ``kinds/<slug>/examples/<CODE>/``): they generate its tests, its documentation page and the
    oracle checks against real JAX."""

    VALID = _FolderExamples("valid")
    INVALID = _FolderExamples("invalid")
    # JAX versions on which every example's prediction was checked by running it.
    verified_on: ClassVar[tuple[str, ...]] = VERIFIED_ON


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

