"""Jupyter notebooks (``.ipynb``) for ``pallas-lsp check``.

A notebook's code cells are analysed as one module, as the kernel runs them: a kernel defined
in one cell and launched in another is followed. IPython magics and shell escapes are not
Python, so their lines are blanked (kept as empty lines: every line stays where it was) and a
cell magic (``%%bash``) blanks its whole cell. Findings are then moved back into the cell they
point at: ``cell`` is the cell's position in the notebook, counting every cell (markdown too)
as an editor shows them, and ``line``/``column`` are counted inside that cell.

(The language server joins open notebook cells its own way, from the LSP documents; this reads
the file.)
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Sequence

from .analysis.findings import Finding, Related
from .analysis.module import Span

NOTEBOOK_SUFFIX = ".ipynb"
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # Python's own line breaks (not str.splitlines' others)
# IPython, not Python: `%magic`, `!shell`, `x = %magic`, `files = !ls`, `?obj`, `obj?`, `obj??`.
_MAGIC_OR_SHELL = re.compile(r"^[ \t]*(?:[%!?]|[\w.]+(?:[ \t]*,[ \t]*[\w.]+)*[ \t]*=[ \t]*[%!]|[\w.]+\?\??[ \t]*$)")


class NotebookError(ValueError):
    """The file is not a notebook this can read; the message says why."""


def is_notebook(path: object) -> bool:
    return str(path).lower().endswith(NOTEBOOK_SUFFIX)


@dataclass(frozen=True)
class CellLines:
    cell: int  # 1-based position of the cell in the notebook, every cell counted
    first_line: int  # 1-based line of the cell's first line in the joined module
    lines: tuple[str, ...]  # the cell's lines as analysed (magics blanked)


@dataclass(frozen=True)
class JoinedNotebook:
    text: str
    cells: tuple[CellLines, ...]

    def locate(self, line: int) -> CellLines | None:
        """The code cell holding joined line ``line`` (1-based)."""
        for c in self.cells:
            if c.first_line <= line < c.first_line + len(c.lines):
                return c
        return None


def _cell_source(cell: dict, number: int) -> str:
    src = cell.get("source", "")
    if isinstance(src, list) and all(isinstance(s, str) for s in src):
        return "".join(src)
    if isinstance(src, str):
        return src
    raise NotebookError(f"cell {number}: 'source' is neither a string nor a list of strings")


def _is_python(nb: dict) -> bool:
    meta = nb.get("metadata")
    if not isinstance(meta, dict):
        return True
    for key in ("language_info", "kernelspec"):
        info = meta.get(key)
        if isinstance(info, dict):
            lang = info.get("name") if key == "language_info" else info.get("language")
            if isinstance(lang, str) and lang:
                return lang.lower() == "python"
    return True  # nothing says otherwise


def join_notebook(data: bytes | str) -> JoinedNotebook:
    """The code cells of a notebook file's contents as one module; :class:`NotebookError` when
    it is not valid notebook JSON."""
    try:
        nb = json.loads(data)
    except (ValueError, UnicodeError) as exc:  # (json.JSONDecodeError is a ValueError)
        raise NotebookError(f"not valid notebook JSON: {exc}") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotebookError("not a notebook: no list of 'cells'")
    if not _is_python(nb):
        return JoinedNotebook("", ())
    parts: list[str] = []
    cells: list[CellLines] = []
    line = 1
    for number, cell in enumerate(nb["cells"], start=1):
        if not isinstance(cell, dict):
            raise NotebookError(f"cell {number} is not an object")
        if cell.get("cell_type") != "code":
            continue
        lines = _LINE_BREAK.split(_cell_source(cell, number))
        if len(lines) > 1 and lines[-1] == "":
            lines.pop()  # (a final line break ends the last line, it does not start one)
        if lines and lines[0].lstrip().startswith("%%"):
            lines = [""] * len(lines)  # a cell magic: the whole cell is another language
        else:
            lines = ["" if _MAGIC_OR_SHELL.match(ln) else ln for ln in lines]
        cells.append(CellLines(number, line, tuple(lines)))
        parts.extend(ln + "\n" for ln in lines)
        line += len(lines)
    return JoinedNotebook("".join(parts), tuple(cells))


def _span_in_cell(nb: JoinedNotebook, span: Span) -> tuple[int | None, Span]:
    cell = nb.locate(span.line)
    if cell is None:
        return None, span
    last = cell.first_line + len(cell.lines) - 1
    line = span.line - cell.first_line + 1
    if span.end_line > last:  # (ends in a later cell: stop at the end of this one)
        end_line, end_col = len(cell.lines), len(cell.lines[-1])
    else:
        end_line, end_col = span.end_line - cell.first_line + 1, span.end_col
    return cell.cell, Span(line, span.col, end_line, end_col)


_LINE_REFERENCE = re.compile(r"\(line (\d+)\)")  # how messages point at another line of the module


def _cell_line(nb: JoinedNotebook, m: re.Match) -> str:
    line = int(m.group(1))
    cell = nb.locate(line)
    return m.group(0) if cell is None else f"(cell {cell.cell}, line {line - cell.first_line + 1})"


def findings_in_cells(nb: JoinedNotebook, findings: Sequence[Finding], path: str) -> list[Finding]:
    """``findings`` of the joined module, each moved into its cell: span counted in the cell,
    ``extra["cell"]`` the cell's number, ``extra["related_cells"]`` those of its related
    locations (None for one in another file). Their fixes are dropped: they are edits of the
    joined module, and ``check --fix`` does not write notebooks."""
    import os

    here = os.path.abspath(path)
    out = []
    for f in findings:
        if f.path is not None and os.path.abspath(f.path) != here:
            out.append(f)  # a construct in another module: its own file's positions
            continue
        cell, span = _span_in_cell(nb, f.span)
        related, related_cells = [], []
        for r in f.related:
            if r.path is None or os.path.abspath(r.path) == here:
                rcell, rspan = _span_in_cell(nb, r.span)
                related.append(Related(rspan, r.message, r.path))
                related_cells.append(rcell)
            else:
                related.append(r)
                related_cells.append(None)
        extra = dict(f.extra)
        message = _LINE_REFERENCE.sub(lambda m: _cell_line(nb, m), f.message)
        extra["cell"] = cell
        extra["related_cells"] = tuple(related_cells)
        out.append(replace(f, span=span, message=message, related=tuple(related), fix_builder=None,
                           extra=extra))
    return out


def cell_of(f: Finding) -> int | None:
    """The notebook cell a finding is in (None: not in a notebook)."""
    cell = f.extra.get("cell") if isinstance(f.extra, dict) else None
    return cell if isinstance(cell, int) else None


def related_cell(f: Finding, index: int) -> int | None:
    cells = f.extra.get("related_cells", ()) if isinstance(f.extra, dict) else ()
    return cells[index] if index < len(cells) and isinstance(cells[index], int) else None
