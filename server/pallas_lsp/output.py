"""Formats for ``pallas-lsp check``: text, json, sarif, github."""
from __future__ import annotations

import json
import os
from typing import Iterable, Sequence

from . import __version__
from .analysis.findings import Finding

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


def finding_json(path: str, f: Finding) -> dict:
    """One finding in the JSON format: 1-based lines and columns, columns in characters."""
    return {
        "path": path,
        "line": f.span.line,
        "column": f.span.col + 1,
        "end_line": f.span.end_line,
        "end_column": f.span.end_col + 1,
        "code": f.code,
        "record": f.record,
        "severity": f.severity.value,
        "message": f.message,
        "related": [{"path": _show(r.path, path), "line": r.span.line, "message": r.message} for r in f.related],
    }


def to_json(results: Iterable[FileFindings]) -> str:
    return json.dumps([finding_json(p, f) for p, fs in results for f in fs], indent=2)


def to_text(results: Iterable[FileFindings], *, show_related: bool = True) -> str:
    lines: list[str] = []
    count = files = 0
    for path, fs in results:
        if fs:
            files += 1
        for f in fs:
            count += 1
            lines.append(f"{path}:{f.span.line}:{f.span.col + 1}: {f.code} [{f.severity.value}] {f.message}")
            if show_related:
                for r in f.related:
                    lines.append(f"    {_show(r.path, path)}:{r.span.line}: {r.message}")
    lines.append(f"Found {count} problem{'s' if count != 1 else ''} in {files} file{'s' if files != 1 else ''}."
                 if count else "No problems found.")
    return "\n".join(lines)


def _gh_escape(s: str, prop: bool = False) -> str:
    s = s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        s = s.replace(":", "%3A").replace(",", "%2C")
    return s


def to_github(results: Iterable[FileFindings]) -> str:
    out = []
    for path, fs in results:
        for f in fs:
            level = {"error": "error", "warning": "warning"}.get(f.severity.value, "notice")
            props = (f"file={_gh_escape(path, True)},line={f.span.line},col={f.span.col + 1},"
                     f"endLine={f.span.end_line},endColumn={f.span.end_col + 1},title={_gh_escape(f.code, True)}")
            out.append(f"::{level} {props}::{_gh_escape(f.message)}")
    return "\n".join(out)


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
                                          "region": {"startLine": r.span.line, "startColumn": r.span.col + 1}}}
                    for i, r in enumerate(f.related)],
                "properties": {"record": f.record},
            })
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "pallas-lsp", "version": __version__,
                                      "informationUri": "https://github.com/jax-ml/jax", "rules": rule_entries}},
                  "results": res}],
    }
    return json.dumps(doc, indent=2)
