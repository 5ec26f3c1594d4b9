"""Findings: what the analysis reports, as plain data (no LSP, no terminal)."""
from __future__ import annotations

import enum
import threading
from dataclasses import dataclass, field
from typing import Callable

from .contexts import Context
from .module import Span


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFORMATION = "information"
    HINT = "hint"


@dataclass(frozen=True)
class Related:
    span: Span
    message: str
    path: str | None = None  # None: the same file


@dataclass(frozen=True)
class TextEdit:
    span: Span  # columns in code points; end exclusive
    new_text: str


@dataclass(frozen=True)
class Fix:
    title: str
    edits: tuple[TextEdit, ...]
    preferred: bool = False
    kind: str = "quickfix"  # LSP code action kind
    # Safe: the program keeps running in the mode it is launched in (`check --fix` applies it);
    # unsafe fixes change what runs (such as running compiled) and need `--unsafe-fixes`.
    safe: bool = False


@dataclass(frozen=True)
class Finding:
    code: str  # stable rule code, e.g. PAL001
    rule: str  # rule name, e.g. get-global-interpret
    record: str | None  # record slug
    severity: Severity
    message: str
    span: Span
    related: tuple[Related, ...] = ()
    # The quick fixes, built only when asked for (``fixes``): a keystroke computes none.
    fix_builder: Callable[[], tuple[Fix, ...]] | None = field(default=None, compare=False, hash=False, repr=False)
    # What a hover needs beyond the message: the error JAX raises here, the contexts.
    actual_error: str = ""
    contexts: tuple[Context, ...] = ()
    kernel: str = ""
    launch_line: int | None = None
    chain: tuple[str, ...] = ()
    extra: dict = field(default_factory=dict, compare=False, hash=False)
    path: str | None = None  # the module the construct is in (None: the analysed file)
    secondary: bool = False  # shown at a launch or caller for a construct in another module

    _built: list = field(default_factory=list, init=False, compare=False, hash=False, repr=False)

    @property
    def fixes(self) -> tuple[Fix, ...]:
        """The fixes, built on first request (and kept: the finding is of one text)."""
        if self.fix_builder is None:
            return ()
        if not self._built:
            with _BUILD_LOCK:  # (a request and a batch fix may ask at once)
                if not self._built:
                    try:
                        built = tuple(self.fix_builder())
                    except Exception:  # noqa: BLE001 - a fix that cannot be built is not offered
                        built = ()
                    self._built.append(built)
        return self._built[0]

    def detached(self, *, with_fixes: bool = True) -> "Finding":
        """This finding with its fixes built (or dropped) and nothing of the analysis kept: what
        crosses a process boundary (``check -j``) or outlives the analysis."""
        from dataclasses import replace

        return replace(self, fix_builder=Prebuilt(self.fixes) if with_fixes and self.fix_builder else None)

    def sort_key(self) -> tuple:
        return (self.span.line, self.span.col, self.code)


_BUILD_LOCK = threading.RLock()


class Prebuilt:
    """Fixes already built, as a fix builder (picklable, unlike one holding the analysis)."""

    def __init__(self, fixes: tuple[Fix, ...]) -> None:
        self.fixes = tuple(fixes)

    def __call__(self) -> tuple[Fix, ...]:
        return self.fixes
