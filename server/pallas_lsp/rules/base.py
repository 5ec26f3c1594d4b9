"""The rule layer.

Most Pallas errors have the shape "API X cannot run in context Y". Such a rule is
a short :class:`ApiInContextRule` declaration: the construct, the modes, the
record slug, and (where needed) a condition that returns the error JAX raises in
that context, or None when it runs clean. Rules that need more (deciding whether
a grid entry is static) subclass :class:`Rule` and implement ``check_launch``.

Each rule carries VALID and INVALID examples (Fixit-style): they generate its
tests, its documentation page, and the oracle checks against real JAX.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Iterable

from ..analysis.contexts import Context, Mode

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.engine import ConstructHit, LaunchView
    from ..analysis.findings import Finding


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


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    record: ClassVar[str]  # the record slug it is tied to
    summary: ClassVar[str]
    VALID: ClassVar[list[Example]] = []
    INVALID: ClassVar[list[Example]] = []
    # JAX versions on which every example's prediction was checked by running it.
    verified_on: ClassVar[tuple[str, ...]] = ("0.12.0.1",)

    def check_launch(self, launch: "LaunchView", context: Context) -> Iterable["Finding"]:
        return ()

    def check_construct(self, hit: "ConstructHit") -> str | None:
        return None

    @property
    def documentation(self) -> str:
        return (self.__doc__ or "").strip()


class ApiInContextRule(Rule):
    """A construct that fails when a kernel reaching it runs in one of ``modes``."""

    construct: ClassVar[str]  # public qualified name of the API whose call is the construct
    construct_label: ClassVar[str]  # how messages name it, e.g. "pl.get_global"
    modes: ClassVar[frozenset[Mode]]

    def matches(self, hit: "ConstructHit") -> bool:
        return hit.api == self.construct

    def actual_error(self, hit: "ConstructHit") -> str | None:
        """The error JAX raises for this construct in ``hit.context`` (None: runs clean)."""
        raise NotImplementedError

    def check_construct(self, hit: "ConstructHit") -> str | None:
        if hit.context.mode not in self.modes or not self.matches(hit):
            return None
        return self.actual_error(hit)

    def headline(self, hit: "ConstructHit") -> str:
        return f"`{self.construct_label}` cannot run in {hit.context.words}"

    def related(self, hit: "ConstructHit") -> list:
        return []

    def fixes(self, hit: "ConstructHit") -> list:
        return []
