"""Position encodings: libcst/engine columns are code points; LSP clients count UTF-8 or
UTF-16 code units (or UTF-32, which equals code points)."""
from __future__ import annotations

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def to_units(line: str, col: int, encoding: str) -> int:
    """Code-point column -> client units."""
    col = max(0, min(col, len(line)))
    if encoding == UTF32 or line.isascii():
        return col
    head = line[:col]
    if encoding == UTF8:
        return len(head.encode("utf-8", errors="surrogatepass"))
    return col + sum(1 for ch in head if ord(ch) > 0xFFFF)


def from_units(line: str, units: int, encoding: str) -> int:
    """Client units -> code-point column, clamped to the line (a position inside a
    multi-unit character moves to its start)."""
    if units <= 0:
        return 0
    if encoding == UTF32 or line.isascii():
        return min(units, len(line))
    count = 0
    for i, ch in enumerate(line):
        width = len(ch.encode("utf-8", errors="surrogatepass")) if encoding == UTF8 else (2 if ord(ch) > 0xFFFF else 1)
        if count + width > units:
            return i
        count += width
        if count == units:
            return i + 1
    return len(line)
