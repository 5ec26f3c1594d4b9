"""Formats for ``pallas-lsp check``: text, json, sarif, github.

File names and messages come from the checked tree, which may be a stranger's pull request:
a file named ``"x\\n::error file=a.py::pwned"`` must not start a line of its own in a CI log
(GitHub Actions reads ``::command`` lines from the whole log). The line formats escape: text
with :func:`printable`, github with its own ``%0A`` encoding; json and sarif are JSON.
"""
from __future__ import annotations

import json
import os
import unicodedata
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from . import __version__
from .analysis.findings import Finding
from .notebooks import cell_of, related_cell

if TYPE_CHECKING:  # (for annotations only)
    from .chips import GenerationChoice
    from .releases import ReleaseChoice

FileFindings = tuple[str, Sequence[Finding]]


def _show(p: str | None, default: str) -> str:
    """Paths as the user gave them: other modules' absolute paths relative to the current folder."""
    if not p:
        return default
    if os.path.isabs(p) and not os.path.isabs(default):
        try:
            return os.path.relpath(p)
        except ValueError:
            return p
    return p


# Explicit bidirectional controls reorder what a terminal shows ("Trojan Source"): escaped too.
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(ch: str) -> str:
    if ch in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` on one line, safe to print to a terminal or a CI log: control characters (C0,
    DEL, C1: newlines, carriage returns, escape sequences), lone surrogates (undecodable bytes
    of a file name), line and paragraph separators and
    bidirectional controls become Python-style escapes (``\\n``, ``\\x1b``, ``\\u2028``); every
    other character, non-ASCII letters included, stays as it is. Backslashes are kept (Windows
    paths), so the escaping is for safety, not reversible."""
    if text.isprintable() and not _BIDI_CONTROLS.intersection(text):
        return text  # the common case, without a per-character walk
    return "".join(_escape_char(ch) if _unsafe(ch) else ch for ch in text)


def _unsafe(ch: str) -> bool:
    # Cs: the lone surrogates that stand for undecodable bytes in a file name; printed raw they
    # would stop the whole output with a UnicodeEncodeError.
    return ch in _BIDI_CONTROLS or unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp")


def where(f: Finding) -> str:
    """``line:column``, or ``cell N:line:column`` for a finding in a notebook (ruff's form)."""
    cell = cell_of(f)
    return (f"cell {cell}:" if cell is not None else "") + f"{f.span.line}:{f.span.col + 1}"


def _related_where(f: Finding, i: int, line: int) -> str:
    cell = related_cell(f, i)
    return (f"cell {cell}:" if cell is not None else "") + str(line)


def _related_json(f: Finding, path: str) -> list[dict]:
    out = []
    for i, r in enumerate(f.related):
        entry = {"path": _show(r.path, path), "line": r.span.line, "message": r.message}
        cell = related_cell(f, i)
        if cell is not None:
            entry["cell"] = cell
        out.append(entry)
    return out


def finding_json(path: str, f: Finding) -> dict:
    """One finding in the JSON format: 1-based lines and columns, columns in characters; in a
    notebook, ``cell`` (1-based, every cell counted) with lines counted inside the cell."""
    cell = cell_of(f)
    return {
        "path": path,
        **({"cell": cell} if cell is not None else {}),
        "line": f.span.line,
        "column": f.span.col + 1,
        "end_line": f.span.end_line,
        "end_column": f.span.end_col + 1,
        "code": f.code,
        "record": f.record,
        "severity": f.severity.value,
        "message": f.message,
        "related": _related_json(f, path),
        # A what-if (--assume-interpret): the mode the launch was assumed to run in.
        **({"assumed": f.extra["assumed"]} if f.extra.get("assumed") else {}),
        # What the code can do instead (PAL401: an alternative the oracle lowered on that backend).
        **({"instead": f.extra["instead"]} if f.extra.get("instead") else {}),
    }


def to_json(results: Iterable[FileFindings], releases: Mapping[str, ReleaseChoice] | None = None,
            generations: Mapping[str, GenerationChoice] | None = None) -> str:
    """The findings as a list; with ``releases`` (path -> releases.ReleaseChoice) a finding whose
    file is not checked against the default release carries the ``jax`` it was checked against:
    ``{version_found, release_used, source, note}`` (the default adds nothing: the keys consumers
    know stay as they were); likewise, with ``generations`` (path -> chips.GenerationChoice), the
    ``tpu_generation`` chosen for its file, ``{generation, source}``, where one is."""
    shown = {p: c.as_json() for p, c in (releases or {}).items() if not c.is_default}
    chips = {p: c.as_json() for p, c in (generations or {}).items() if c.generation is not None}
    return json.dumps([{**finding_json(p, f), **({"jax": shown[p]} if p in shown else {}),
                        **({"tpu_generation": chips[p]} if p in chips else {})}
                       for p, fs in results for f in fs], indent=2)


def release_words(releases: Mapping[str, ReleaseChoice] | None) -> str:
    """`` (jax 0.10.2 from .venv)`` for a summary line, when some file is not checked against the
    default (the pinned release, found nowhere else); "" otherwise."""
    shown = sorted({c.summary() for c in (releases or {}).values() if not c.is_default})
    return f" ({'; '.join(shown)})" if shown else ""


def to_text(results: Iterable[FileFindings], *, show_related: bool = True,
            releases: Mapping[str, ReleaseChoice] | None = None) -> str:
    lines: list[str] = []
    count = files = 0
    for path, fs in results:
        if fs:
            files += 1
        for f in fs:
            count += 1
            lines.append(f"{printable(path)}:{where(f)}: {printable(f.code)} "
                         f"[{f.severity.value}] {printable(f.message)}")
            if show_related:
                for i, r in enumerate(f.related):
                    lines.append(f"    {printable(_show(r.path, path))}:{_related_where(f, i, r.span.line)}: "
                                 f"{printable(r.message)}")
    jax = release_words(releases)
    lines.append(f"Found {count} problem{'s' if count != 1 else ''} in {files} file{'s' if files != 1 else ''}{jax}."
                 if count else f"No problems found{jax}.")
    return "\n".join(lines)


def _gh_escape(s: str, prop: bool = False) -> str:
    s = s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if not s.isprintable():  # lone surrogates (undecodable bytes of a file name) cannot be printed
        s = "".join(_escape_char(ch) if unicodedata.category(ch) == "Cs" else ch for ch in s)
    if prop:
        s = s.replace(":", "%3A").replace(",", "%2C")
    return s


def to_github(results: Iterable[FileFindings]) -> str:
    out = []
    for path, fs in results:
        for f in fs:
            level = {"error": "error", "warning": "warning"}.get(f.severity.value, "notice")
            cell = cell_of(f)
            if cell is not None:  # a line of the .ipynb file would be a line of its JSON: on the file, saying where
                props = f"file={_gh_escape(path, True)},title={_gh_escape(f.code, True)}"
                out.append(f"::{level} {props}::{_gh_escape(where(f) + ': ' + f.message)}")
                continue
            props = (f"file={_gh_escape(path, True)},line={f.span.line},col={f.span.col + 1},"
                     f"endLine={f.span.end_line},endColumn={f.span.end_col + 1},title={_gh_escape(f.code, True)}")
            out.append(f"::{level} {props}::{_gh_escape(f.message)}")
    return "\n".join(out)


def _sarif_cell(cell: int | None) -> dict:
    # SARIF has no notebook cells: the region is counted inside the cell the property names.
    return {"properties": {"cell": cell}} if cell is not None else {}


def statistics(results: Iterable[FileFindings], fixable=None) -> list[dict]:
    """Findings counted per code, most frequent first (``check --statistics``); ``fixable``:
    whether a finding has a fix ``check --fix`` would apply."""
    counts: dict[str, dict] = {}
    for _, fs in results:
        for f in fs:
            row = counts.setdefault(f.code, {"code": f.code, "name": f.rule, "count": 0, "fixable": False})
            row["count"] += 1
            if fixable is not None and fixable(f):
                row["fixable"] = True
    return sorted(counts.values(), key=lambda r: (-r["count"], r["code"]))


def statistics_text(rows: Sequence[dict]) -> str:
    """As ruff prints them: count, code, ``[*]`` when fixable, the rule's name."""
    if not rows:
        return "No problems found."
    width = max(len(str(r["count"])) for r in rows)
    code_width = max(len(r["code"]) for r in rows)
    return "\n".join(f"{r['count']:>{width}}\t{printable(r['code']):<{code_width}}\t"
                     f"{'[*]' if r['fixable'] else '[ ]'} {printable(r['name'])}" for r in rows)


def to_sarif(results: Iterable[FileFindings], rules: Sequence[object], records: dict[str, str]) -> str:
    rule_entries = []
    for r in rules:
        rule_entries.append({
            "id": r.code,  # type: ignore[attr-defined]
            "name": r.name,  # type: ignore[attr-defined]
            "shortDescription": {"text": r.summary},  # type: ignore[attr-defined]
            "fullDescription": {"text": r.documentation},  # type: ignore[attr-defined]
            "helpUri": records.get(r.record, ""),  # type: ignore[attr-defined]
            "properties": {"record": r.record},  # type: ignore[attr-defined]
        })
    res = []
    for path, fs in results:
        for f in fs:
            region = {"startLine": f.span.line, "startColumn": f.span.col + 1,
                      "endLine": f.span.end_line, "endColumn": f.span.end_col + 1}
            res.append({
                "ruleId": f.code,
                "level": {"error": "error", "warning": "warning"}.get(f.severity.value, "note"),
                "message": {"text": f.message},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": path}, "region": region}}],
                "relatedLocations": [
                    {"id": i, "message": {"text": r.message},
                     "physicalLocation": {"artifactLocation": {"uri": _show(r.path, path)},
                                          "region": {"startLine": r.span.line, "startColumn": r.span.col + 1}},
                     **_sarif_cell(related_cell(f, i))}
                    for i, r in enumerate(f.related)],
                "properties": {"record": f.record, **({"cell": cell_of(f)} if cell_of(f) is not None else {})},
            })
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "pallas-lsp", "version": __version__,
                                      "informationUri": "https://github.com/jax-ml/jax", "rules": rule_entries}},
                  "results": res}],
    }
    return json.dumps(doc, indent=2)
