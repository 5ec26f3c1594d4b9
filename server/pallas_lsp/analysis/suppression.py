"""``# pallas-lsp: ignore[...]`` comments: the one parser, used by the engine (which findings a
line suppresses) and by the fix builder (which comment "Ignore PALxxx on this line" extends).

Read as the engine always read them: case-insensitive (``# PALLAS-LSP: IGNORE[PAL001]``), spaces
allowed around the colon; ``ignore`` without brackets suppresses every finding on the line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_COMMENT = re.compile(r"#\s*pallas-lsp:\s*ignore(?:\[([^\]]*)\])?", re.IGNORECASE)
_MARKER = re.compile(r"pallas-lsp", re.IGNORECASE)


def may_hold_suppression(text: str) -> bool:
    """A cheap test: text without the word ``pallas-lsp`` (in any case) holds no comment."""
    return _MARKER.search(text) is not None


@dataclass(frozen=True)
class Suppression:
    """One suppression comment on a line; columns are code points into the line."""

    start: int  # the ``#``
    end: int  # just after the comment (its closing bracket, if any)
    codes: tuple[str, ...] | None  # as written, in order; None: every code (no brackets)
    codes_start: int = -1  # the text between the brackets, [codes_start, codes_end)
    codes_end: int = -1

    def covers(self, code: str, rule: str | None = None) -> bool:
        """Whether a finding with this code (or rule name) is suppressed; codes compare
        case-insensitively, as the comment itself is read."""
        if self.codes is None:
            return True
        wanted = {c.upper() for c in self.codes}
        return code.upper() in wanted or (rule is not None and rule.upper() in wanted)


def find_suppression(line_text: str) -> Suppression | None:
    """The suppression comment on a line (the first, when there are several), or None."""
    if not may_hold_suppression(line_text):
        return None
    m = _COMMENT.search(line_text)
    if m is None:
        return None
    if m.group(1) is None:
        return Suppression(m.start(), m.end(), None)
    codes = tuple(c.strip() for c in m.group(1).split(",") if c.strip())
    return Suppression(m.start(), m.end(), codes, m.start(1), m.end(1))


def with_code(found: Suppression, code: str) -> str:
    """The bracket text of ``found`` with ``code`` added (kept once)."""
    codes = list(found.codes or ())
    if not any(c.upper() == code.upper() for c in codes):
        codes.append(code)
    return ", ".join(codes)
