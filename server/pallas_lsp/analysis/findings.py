"""Findings: what the analysis reports, as plain data (no LSP, no terminal)."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field

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


@dataclass(frozen=True)
class Finding:
    code: str  # stable rule code, e.g. PAL001
    rule: str  # rule name, e.g. get-global-interpret
    record: str | None  # record slug
    severity: Severity
    message: str
    span: Span
    related: tuple[Related, ...] = ()
    fixes: tuple[Fix, ...] = ()
    # What a hover needs beyond the message: the error JAX raises here, the contexts.
    actual_error: str = ""
    contexts: tuple[Context, ...] = ()
    kernel: str = ""
    launch_line: int | None = None
    chain: tuple[str, ...] = ()
    extra: dict = field(default_factory=dict, compare=False, hash=False)
    path: str | None = None  # the module the construct is in (None: the analysed file)
    secondary: bool = False  # shown at a launch or caller for a construct in another module

    def sort_key(self) -> tuple:
        return (self.span.line, self.span.col, self.code)
