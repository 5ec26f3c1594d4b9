"""The rule layer.

Most Pallas errors have the shape "API X cannot run in context Y": such a kind is data,
a detection section of its record (``rules/data.py``). Where data cannot say the condition
(whether a grid entry is static, whether an unused result is dead code), a rule is a small
Python class on the one rule API (``analysis/rule_api.py``): :class:`ApiInContextRule` for a
call of an API, :class:`PythonRule` with ``construct = "launch"`` for a launch property.

Each rule has VALID and INVALID examples (Fixit-style), one runnable program per file in
``rules/examples/<CODE>/`` (``rules/examples.py`` reads them): they generate its tests, its
documentation page, and the oracle checks against real JAX.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from typing import ClassVar

from ..analysis.findings import Fix, Related
from ..analysis.rule_api import ConstructKind, Hit, Report, Rule


# The JAX version the examples' predictions were checked on by running them (the oracle checks
# that it runs this version); a rule may name others in its ``verified_on``.
VERIFIED_ON: tuple[str, ...] = ("0.12.0.1",)


@dataclass(frozen=True)
class Example:
    # The whole program (for an example file: its text, header comments included, so line
    # numbers are the file's).
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
    # The file it was read from ("" for an example built in code), and how many header comment
    # lines open it.
    path: str = field(default="", compare=False)
    header_lines: int = 0

    @property
    def name(self) -> str:
        """The file's name without ``.py`` (``invalid_01_semaphore_taken_with_get_global``), or ""."""
        return PurePath(self.path).stem

    @property
    def program(self) -> str:
        """The code without its header comments (what the documentation shows)."""
        return "".join(self.code.splitlines(keepends=True)[self.header_lines:])

    def error_line(self) -> int:
        if self.line is not None:
            return self.line
        for i, text in enumerate(self.code.splitlines(), 1):
            if i > self.header_lines and text.rstrip().endswith("# error"):
                return i
        raise ValueError(f"{self.path or 'INVALID example'}: no '# error' marker or line")


class _FolderExamples:
    """``VALID`` / ``INVALID`` of a rule class: its example files, read on first use."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __get__(self, obj: object, owner: type) -> tuple[Example, ...]:
        from .examples import examples_for  # (examples.py imports Example from here)

        found = examples_for(owner.code)
        return found.valid if self.kind == "valid" else found.invalid


class PythonRule(Rule):
    """A rule written in Python, with its examples (Fixit-style, files in
    ``rules/examples/<CODE>/``): they generate its tests, its documentation page and the
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
