"""One analysis of a unit as the server keeps it (:class:`Analysed`), and the two analyses a
worker runs on a :class:`~.session.UnitSnapshot`: the module alone (phase 1, every keystroke)
and the module with the workspace followed (phase 2)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from lsprotocol import types as lsp

from .documents import CellSlice, Document, cell_of

if TYPE_CHECKING:
    from ..analysis.engine import AnalysisResult
    from ..records import RecordStore
    from .convert import Location
    from .session import Caps, UnitSnapshot


class Collector(Protocol):
    def pause(self) -> None: ...


@dataclass
class Analysed:
    """One analysis of a unit (a text document, or a notebook's code cells as one module)."""

    gen: int
    text: str
    result: AnalysisResult
    slices: list[CellSlice] | None  # notebooks: where each cell is in the joined text
    docs: dict[str, Document]  # frozen copies of the analysed documents
    unit: str
    partial: bool = False  # this module alone; the workspace-wide result is still coming
    diagnostics: dict[str, list[lsp.Diagnostic]] = field(default_factory=dict)
    what_if: dict = field(default_factory=dict)  # assumed interpret mode -> its analysis (made on request)
    release: Any = None  # analysis.contexts.JaxRelease the analysis was made for (what-if reuses it)
    release_choice: Any = None  # releases.ReleaseChoice: that release and where it was found (hover)
    tpu_generation: str | None = None  # the chip whose limits memory budgets are held to (None: v5e's)
    # analysis.launch_report.LaunchReport per launch (made on request: the lens and the hover)
    reports: list | None = None

    def locate(self, line: int) -> Location | None:
        """Where a line of the analysed (joined) text lives."""
        from .convert import Location

        if self.slices is None:
            doc = self.docs.get(self.unit)
            return Location(doc, 0) if doc is not None else None
        hit = cell_of(self.slices, line)
        if hit is None:
            return None
        doc = self.docs.get(hit[0].uri)
        return Location(doc, hit[0].first_line - 1) if doc is not None else None


def analyse_alone(snap: UnitSnapshot, collector: Collector) -> Analysed | None:
    """Phase 1, on the fast worker: the module on its own (milliseconds, every keystroke).
    None when the text changed while the job waited in the queue."""
    if snap.stale.is_set():
        return None
    if len(snap.text) > snap.max_file_bytes:
        return _analysed(snap, too_large(snap.text, snap.path, snap.max_file_bytes))
    if snap.prev is None:
        collector.pause()  # (the worker turns it on again: PausedCollector)
    cfg = snap.config
    result = snap.engine.analyse(snap.text, snap.path, select=cfg.select, ignore=cfg.ignore,
                                 backends=cfg.backends or (), release=snap.release)
    return _analysed(snap, result, partial=snap.program is not None)


def analyse_in_workspace(snap: UnitSnapshot) -> tuple[Analysed, set[str]] | None:
    """Phase 2, on the workspace worker: the module with imports, importers and callers across
    the workspace followed (possibly seconds when cold), with the module paths it consulted."""
    if snap.stale.is_set():
        return None  # superseded while queued
    program, cfg = snap.program, snap.config
    program.reset_accessed()
    result = snap.engine.analyse_in(program, snap.path, select=cfg.select, ignore=cfg.ignore,
                                    backends=cfg.backends or (), release=snap.release)
    deps = program.reset_accessed()
    return _analysed(snap, result), deps


def _analysed(snap: UnitSnapshot, result: AnalysisResult, partial: bool = False) -> Analysed:
    if snap.chip_claims is not None:  # (before findings carried over mid-edit join them: those are claimed)
        result.findings = snap.chip_claims.claimed(result.findings, snap.config.tpu_generation)
    if result.syntax_errors and snap.prev is not None:
        _carry_over(snap.prev, result, snap.text)
    a = Analysed(snap.gen, snap.text, result, snap.slices, snap.docs, snap.unit, partial=partial,
                 release=snap.release, release_choice=snap.release_choice,
                 tpu_generation=snap.config.tpu_generation)
    a.diagnostics = diagnostics_of(a, snap.store, snap.caps)
    return a


def diagnostics_of(a: Analysed, store: RecordStore, caps: Caps) -> dict[str, list[lsp.Diagnostic]]:
    from .convert import to_diagnostic

    out: dict[str, list[lsp.Diagnostic]] = {uri: [] for uri in a.docs}
    for f in a.result.findings:
        rec = store.by_slug(f.record) if f.record else None
        href = rec.link if rec is not None and rec.link and caps.code_description else None  # https only
        got = to_diagnostic(f, a.locate, caps.encoding, related_support=caps.related, href=href, version=None)
        if got is not None:
            out.setdefault(got[0], []).append(got[1])
    return out


def too_large(text: str, path: str, limit: int) -> AnalysisResult:
    """A document over the size limit: one information diagnostic, no analysis."""
    from ..analysis.engine import AnalysisResult, LaunchList
    from ..analysis.findings import Finding, Severity
    from ..analysis.module import ModuleIndex, Span

    index = ModuleIndex("", path)
    mb = len(text) / 1e6
    f = Finding("PAL903", "file-too-large", None, Severity.INFORMATION,
                f"pallas-lsp does not analyse this file: {mb:.1f} MB is over the {limit / 1e6:.1f} MB limit "
                f"(setting maxFileBytes)", Span(1, 0, 1, 0))
    return AnalysisResult(path, [f], LaunchList([], index), index)


def _carry_over(prev: Analysed, result: AnalysisResult, text: str) -> None:
    """Mid-edit, a block that no longer parses would lose its findings: keep the previous
    findings whose line is still there, unchanged, inside a broken block."""
    from ..analysis.findings import Finding
    from ..analysis.module import Span

    broken: list[tuple[int, int]] = []
    for block, bp in result.index.parses:
        if bp.error is not None:
            broken.append((block.start_line, block.end_line))
    if not broken:
        return
    old_lines = prev.text.splitlines()
    new_lines = text.splitlines()
    have = {(f.code, f.span.line) for f in result.findings}
    kept: list[Finding] = []
    for f in prev.result.findings:
        if f.record is None or not 0 < f.span.line <= len(old_lines):
            continue
        old = old_lines[f.span.line - 1]
        matches = [i + 1 for lo, hi in broken for i in range(lo - 1, min(hi, len(new_lines)))
                   if new_lines[i] == old]
        if len(matches) != 1:
            continue
        delta = matches[0] - f.span.line
        if (f.code, matches[0]) in have:
            continue
        moved = replace(f, span=Span(f.span.line + delta, f.span.col, f.span.end_line + delta, f.span.end_col),
                        related=tuple(r for r in f.related), fix_builder=None, extra={**f.extra, "carried": True})
        kept.append(moved)
    if kept:
        result.findings.extend(kept)
        result.findings.sort(key=Finding.sort_key)
