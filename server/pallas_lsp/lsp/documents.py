"""Open documents and notebooks, kept by the server itself (LSP line breaks: \\n, \\r\\n, \\r)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .positions import from_units, to_units

_BREAK = re.compile(r"\r\n|\r|\n")


class Document:
    def __init__(self, uri: str, text: str, version: int | None, language_id: str = "python") -> None:
        self.uri = uri
        self.version = version
        self.language_id = language_id
        self.notebook: str | None = None  # the notebook uri for a cell
        self._set(text)

    def copy(self) -> "Document":
        d = Document(self.uri, self.text, self.version, self.language_id)
        d.notebook = self.notebook
        d._starts = self._starts
        return d

    def _set(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            self._starts = [0] + [m.end() for m in _BREAK.finditer(self.text)]
        return self._starts

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line(self, i: int) -> str:
        """Line ``i`` (0-based) without its line break ('' past the end)."""
        starts = self.starts
        if i < 0 or i >= len(starts):
            return ""
        end = starts[i + 1] if i + 1 < len(starts) else len(self.text)
        text = self.text[starts[i]:end]
        return text.rstrip("\r\n") if text.endswith(("\n", "\r")) else text

    def offset_at(self, line: int, units: int, encoding: str) -> int:
        """Offset of an LSP position; positions past a line's end or the document's end clamp."""
        starts = self.starts
        if line < 0:
            return 0
        if line >= len(starts):
            return len(self.text)
        return starts[line] + from_units(self.line(line), units, encoding)

    def apply_change(self, rng, text: str, encoding: str) -> None:
        if rng is None:
            self._set(text)
            return
        a = self.offset_at(rng.start.line, rng.start.character, encoding)
        b = self.offset_at(rng.end.line, rng.end.character, encoding)
        if b < a:  # a stale or reversed range: never corrupt more than asked
            a, b = b, a
        old_starts = self._starts
        self._set(self.text[:a] + text + self.text[b:])
        if old_starts is not None:
            # Here, not at the top: importing the analysis package loads the whole engine, which
            # `initialize` must not wait for.
            from ..analysis.blocks import patched_starts

            self._starts = patched_starts(old_starts, self.text, a, b, len(text))

    def position(self, line1: int, col: int, encoding: str) -> tuple[int, int]:
        """Engine position (1-based line, code-point column) -> LSP (line, units)."""
        i = max(0, line1 - 1)
        return i, to_units(self.line(i), col, encoding)

    def engine_position(self, line: int, units: int, encoding: str) -> tuple[int, int]:
        """LSP position -> engine (1-based line, code-point column)."""
        return line + 1, from_units(self.line(line), units, encoding)


@dataclass
class Notebook:
    uri: str
    version: int | None
    cells: list[str] = field(default_factory=list)  # cell document uris, in order
    kinds: dict[str, int] = field(default_factory=dict)  # cell uri -> NotebookCellKind (2 = code)


@dataclass(frozen=True)
class CellSlice:
    uri: str
    first_line: int  # 1-based line of the cell's first line in the joined text
    line_count: int


def join_cells(nb: Notebook, docs: dict[str, Document]) -> tuple[str, list[CellSlice]]:
    """The notebook's code cells as one module, and where each cell landed."""
    parts: list[str] = []
    slices: list[CellSlice] = []
    line = 1
    for uri in nb.cells:
        doc = docs.get(uri)
        if doc is None or nb.kinds.get(uri, 2) != 2 or doc.language_id not in ("python", ""):
            continue
        text = doc.text
        # IPython magics and shell escapes are not Python: blank them, keeping lines.
        text = re.sub(r"(?m)^[ \t]*[%!].*$", "", text)
        if not text.endswith(("\n", "\r")):
            text += "\n"
        n = doc.line_count if not doc.text.endswith(("\n", "\r")) else doc.line_count - 1
        n = max(n, 1)
        slices.append(CellSlice(uri, line, n))
        parts.append(text)
        line += n
    return "".join(parts), slices


def cell_of(slices: list[CellSlice], line1: int) -> tuple[CellSlice, int] | None:
    """The cell holding joined line ``line1`` and the line within the cell (1-based)."""
    for s in slices:
        if s.first_line <= line1 < s.first_line + s.line_count:
            return s, line1 - s.first_line + 1
    return None
