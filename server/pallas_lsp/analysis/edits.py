"""Applying text edits (fixes) to source text. Columns are code points, lines 1-based."""
from __future__ import annotations

from typing import Iterable

from .blocks import line_starts
from .findings import TextEdit


def offset_of(text: str, starts: list[int], line: int, col: int) -> int:
    if line - 1 >= len(starts):
        return len(text)
    return min(starts[line - 1] + col, len(text))


def apply_edits(text: str, edits: Iterable[TextEdit]) -> str:
    """Apply non-overlapping edits (given against the original text)."""
    starts = line_starts(text)
    spans = sorted(((offset_of(text, starts, e.span.line, e.span.col),
                     offset_of(text, starts, e.span.end_line, e.span.end_col), e.new_text) for e in edits),
                   key=lambda t: (t[0], t[1]))
    out, pos = [], 0
    for a, b, new in spans:
        if a < pos:
            raise ValueError("overlapping edits")
        out.append(text[pos:a])
        out.append(new)
        pos = b
    out.append(text[pos:])
    return "".join(out)
