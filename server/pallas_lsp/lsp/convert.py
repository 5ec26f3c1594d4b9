"""Findings and fixes -> LSP types, in the negotiated position encoding."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from lsprotocol import types as lsp

from ..analysis.findings import Finding, Fix, Severity
from ..analysis.module import Span
from .documents import Document

SOURCE = "pallas-lsp"
SEVERITY = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.INFORMATION: lsp.DiagnosticSeverity.Information,
    Severity.HINT: lsp.DiagnosticSeverity.Hint,
}


@dataclass(frozen=True)
class Location:
    """Where an engine span lands: a document and its line offset (notebook cells)."""

    doc: Document
    delta: int  # subtract from engine lines to get the document's 1-based lines


# Maps an engine (joined-text) line to where it lives; None when it cannot be placed.
Locator = Callable[[int], "Location | None"]


def to_range(span: Span, loc: Location, encoding: str) -> lsp.Range:
    doc = loc.doc
    sl, sc = doc.position(span.line - loc.delta, span.col, encoding)
    el, ec = doc.position(span.end_line - loc.delta, span.end_col, encoding)
    return lsp.Range(lsp.Position(sl, sc), lsp.Position(el, ec))


def fix_payload(fix: Fix, locate: Locator, encoding: str) -> dict | None:
    """A fix as plain JSON (kept in Diagnostic.data): {title, kind, preferred, edits: {uri: [...]}}."""
    edits: dict[str, list[dict]] = {}
    for e in fix.edits:
        loc = locate(e.span.line)
        end_loc = locate(e.span.end_line) if e.span.end_line != e.span.line else loc
        if loc is None:
            return None
        if end_loc is None or end_loc.doc is not loc.doc:
            # An edit that ends past the cell: end at the start of the next line of this document.
            end = Span(e.span.line, e.span.col, loc.doc.line_count + loc.delta, 0)
            span = end
        else:
            span = e.span
        r = to_range(span, loc, encoding)
        edits.setdefault(loc.doc.uri, []).append({
            "range": {"start": {"line": r.start.line, "character": r.start.character},
                      "end": {"line": r.end.line, "character": r.end.character}},
            "newText": e.new_text,
        })
    return {"title": fix.title, "kind": fix.kind, "preferred": fix.preferred, "edits": edits}


def payload_to_edit(payload: dict) -> lsp.WorkspaceEdit:
    changes = {}
    for uri, edits in payload.get("edits", {}).items():
        changes[uri] = [lsp.TextEdit(
            lsp.Range(lsp.Position(e["range"]["start"]["line"], e["range"]["start"]["character"]),
                      lsp.Position(e["range"]["end"]["line"], e["range"]["end"]["character"])),
            e["newText"]) for e in edits]
    return lsp.WorkspaceEdit(changes=changes)


def other_doc(path: str) -> Document | None:
    """A read-only document for a workspace file (to place related locations in it)."""
    from pathlib import Path

    from ..analysis.program import read_file

    text = read_file(path)
    return Document(Path(path).as_uri(), text, None) if text is not None else None


def to_diagnostic(f: Finding, locate: Locator, encoding: str, *, related_support: bool, href: str | None,
                  version: int | None) -> tuple[str, lsp.Diagnostic] | None:
    loc = locate(f.span.line)
    if loc is None:
        return None
    related = None
    if related_support and f.related:
        related = []
        for r in f.related:
            if r.path:  # another module of the workspace
                other = other_doc(r.path)
                if other is None:
                    continue
                rl: Location | None = Location(other, 0)
            else:
                rl = locate(r.span.line)
            if rl is None:
                continue
            related.append(lsp.DiagnosticRelatedInformation(
                lsp.Location(rl.doc.uri, to_range(r.span, rl, encoding)), r.message))
    d = lsp.Diagnostic(
        range=to_range(f.span, loc, encoding),
        message=f.message,
        severity=SEVERITY[f.severity],
        code=f.code,
        code_description=lsp.CodeDescription(href=href) if href else None,
        source=SOURCE,
        related_information=related,
        # (No fix edits here: a code action builds them when asked, from the finding.)
        data={"code": f.code, "version": version, "line": f.span.line, "col": f.span.col,
              **({"carried": True} if f.extra.get("carried") else {})},
    )
    return loc.doc.uri, d
