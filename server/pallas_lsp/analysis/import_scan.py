"""What a module imports, read from its text without indexing it.

Finding a module's importers, or deciding that a module cannot concern Pallas, needs every
workspace file's imports; indexing every file (or asking jedi about each import) made a
one-file ``check`` in a large repository take tens of seconds. This scanner looks only at the
lines that can hold an import statement (``import x`` / ``from x import y`` at any
indentation, after a ``;`` too, with bracketed and backslash continuations) and parses just
those statements. It may see more than the interpreter would (an import written inside a
triple-quoted string): an extra import only makes the analysis look at one more module, while
a missed one would lose findings, so it errs on the side of more.
"""
from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

MAX_STATEMENT_LINES = 5000  # a bracketed import list longer than this is cut (and not parsed)


@dataclass(frozen=True)
class ImportFact:
    """One import statement as written: ``from`` (``level`` dots, ``module``) or ``import``
    (``module`` empty), with its ``(name, asname)`` pairs."""

    is_from: bool
    module: str
    level: int
    names: tuple[tuple[str, str | None], ...]

    def to_json(self) -> list:
        return [int(self.is_from), self.module, self.level, [list(n) for n in self.names]]

    @staticmethod
    def from_json(raw: list) -> "ImportFact":
        is_from, module, level, names = raw
        return ImportFact(bool(is_from), str(module), int(level),
                          tuple((str(n), None if a is None else str(a)) for n, a in names))


class LazyImportFacts(Sequence):
    """Import facts kept as their JSON form (:meth:`ImportFact.to_json`, as ``check``'s cache
    holds them) until first read: a warm run mostly takes each module's import edges from the
    cache and never needs the statements themselves (decoding them all was a tenth of it)."""

    __slots__ = ("_raw", "_facts")

    def __init__(self, raw: list) -> None:
        if not isinstance(raw, list) or not all(isinstance(i, list) and len(i) == 4 for i in raw):
            raise ValueError("not a list of import facts")
        self._raw: list | None = raw
        self._facts: tuple[ImportFact, ...] | None = None

    def _decoded(self) -> tuple[ImportFact, ...]:
        if self._facts is None:
            self._facts = tuple(ImportFact.from_json(i) for i in self._raw or ())
            self._raw = None
        return self._facts

    def __getitem__(self, i):
        return self._decoded()[i]

    def __len__(self) -> int:
        return len(self._decoded())

    def __iter__(self):
        return iter(self._decoded())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(self._decoded())


def scan_imports(text: str) -> tuple[ImportFact, ...]:
    """The import statements of a module's text, in order (duplicates kept once)."""
    if "import" not in text:
        return ()
    out: dict[ImportFact, None] = {}
    consumed = 0  # (a start inside a statement already read is not read again: linear time)
    for begin in _starts(text):
        if begin < consumed:
            continue
        statement, consumed = _statement_at(text, begin)
        for fact in _parse(statement):
            out.setdefault(fact, None)
    return tuple(out)


def _starts(text: str):
    """Where an import statement may start, in order: at the start of a line or after a ``;``,
    ``import`` followed by a space, tab, ``(`` or ``\\``, or ``from`` followed by a space, tab or
    ``\\`` on a line (a backslash-continued one included) that says ``import`` further on.
    Found from each ``import`` in the text (a fixed word: ``str.find`` skips the rest at C
    speed; a pattern anchored at every line start was three quarters of the scan)."""
    pos = 0
    while True:
        i = text.find("import", pos)
        if i < 0:
            return
        pos = i + 6
        start = text.rfind("\n", 0, i) + 1
        while start >= 2 and (text[start - 2] == "\\" or (text[start - 2] == "\r" and start >= 3
                                                          and text[start - 3] == "\\")):
            start = text.rfind("\n", 0, start - 2) + 1  # (a continued line: from its first line)
        semi = text.rfind(";", start, i)
        if semi >= 0:
            start = semi + 1
        head = text[start:i]
        lead = len(head) - len(head.lstrip(" \t"))
        rest = head[lead:]
        if not rest:
            if text[i + 6:i + 7] in (" ", "\t", "(", "\\"):
                yield start + lead
        elif rest.startswith("from") and rest[4:5] in (" ", "\t", "\\"):
            yield start + lead


def _statement_at(text: str, begin: int) -> tuple[str, int]:
    """The statement starting at offset ``begin`` (to the end of its line, or of the bracket it
    opens, or on through backslash continuations; comments dropped, cut at the next ``;``) and
    the offset from which the scan goes on."""
    parts: list[str] = []
    depth, pos = 0, begin
    while len(parts) < MAX_STATEMENT_LINES:
        nl = text.find("\n", pos)
        line = text[pos:] if nl < 0 else text[pos:nl]
        code = line.split("#", 1)[0] if "#" in line else line
        code = code.rstrip()
        continued = code.endswith("\\")
        if continued:
            code = code[:-1]
        parts.append(code.strip())
        depth += code.count("(") - code.count(")")
        if nl < 0 or (depth <= 0 and not continued):
            break
        pos = nl + 1
    # Starts on the lines in between are inside this statement; one on its last line (after a
    # `;`) is not.
    return " ".join(parts).split(";", 1)[0], (pos if len(parts) > 1 else begin + 1)


def _parse(statement: str) -> list[ImportFact]:
    try:
        tree = ast.parse(statement)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    out = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            out.append(ImportFact(True, node.module or "", node.level or 0,
                                  tuple((a.name, a.asname) for a in node.names)))
        elif isinstance(node, ast.Import):
            out.append(ImportFact(False, "", 0, tuple((a.name, a.asname) for a in node.names)))
    return out
