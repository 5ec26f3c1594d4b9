"""textDocument/codeLens: on each launch, its contexts (clicked: the chain that decides them),
and on compiled launches whether the interpreter that fits them would run them ("what if")."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from .commands import SHOW_LAUNCH_COMMAND

if TYPE_CHECKING:
    from .documents import Document
    from .results import Analysed
    from .scheduler import Scheduler
    from .session import Session

OPTIONS = lsp.CodeLensOptions(resolve_provider=False)


async def code_lens(session: Session, scheduler: Scheduler, params: lsp.CodeLensParams) -> list[lsp.CodeLens]:
    from ..present import launch_lens_title, problems_of
    from .convert import to_range

    uri = params.text_document.uri
    if not session.settings.code_lens or uri not in session.docs:
        return []
    unit = session.unit_of(uri)
    a = await scheduler.ensure(unit)
    if a is None:
        return []
    locate = a.locate
    lenses = []
    for launch in a.result.launches:
        loc = locate(launch.anchor.line)
        if loc is None or loc.doc.uri != uri:
            continue
        title = launch_lens_title(launch, len(problems_of(a.result, launch)))
        rng = to_range(launch.anchor, loc, session.caps.encoding)
        chain = launch_chain(a, launch, session.caps.encoding, session.open_paths)
        # Arguments as VS Code's editor.action.showReferences takes them: the launch, where to
        # peek from, and the context chain (the client converts them to its own types).
        lenses.append(lsp.CodeLens(range=rng, command=lsp.Command(
            title=title, command=SHOW_LAUNCH_COMMAND,
            arguments=[uri, {"line": rng.start.line, "character": rng.start.character}, chain])))
    lenses += await _budget_lenses(session, scheduler, a, uri)
    if session.settings.what_if and session.config_for(unit).what_if is not False:
        if scheduler.lenses.typing(unit) and session.caps.code_lens_refresh and a.slices is None:
            scheduler.lenses.when_idle(unit)  # (asked again, with them, once typing pauses)
        else:
            lenses += await _what_if_lenses(session, scheduler, a, uri)
    return lenses


async def _budget_lenses(session: Session, scheduler: Scheduler, a: Analysed, uri: str) -> list[lsp.CodeLens]:
    """On each compiled TPU launch whose memory the analysis can estimate: ``VMEM 12.5 of 16 MiB
    (v5e): x_ref 2 x 4 MiB, ...``; clicking peeks the parts' declarations."""
    from ..analysis.launch_report import budget_hint
    from .convert import to_range

    if not any(c.mode.value == "tpu" for launch in a.result.launches for c in launch.contexts):
        return []  # (no compiled TPU launch: no work on a worker)
    out = []
    index = a.result.index
    for report in await scheduler.lenses.launch_reports(a):
        title = budget_hint(report)
        loc = a.locate(report.launch.anchor.line)
        if title is None or loc is None or loc.doc.uri != uri:
            continue
        rng = to_range(report.launch.anchor, loc, session.caps.encoding)
        chain = []
        assert report.budget is not None
        for part in sorted(report.budget.parts, key=lambda p: -p.total):
            if part.where is None or index.path_of(part.where[1]) not in (None, index.path):
                continue  # (declared in another module)
            span = index.span(part.where[0], part.where[1])
            ploc = a.locate(span.line)
            if ploc is None or ploc.doc.uri != uri:
                continue
            r = to_range(span, ploc, session.caps.encoding)
            chain.append({"uri": uri, "range": {"start": {"line": r.start.line, "character": r.start.character},
                                                "end": {"line": r.end.line, "character": r.end.character}}})
        out.append(lsp.CodeLens(range=rng, command=lsp.Command(
            title=title, command=SHOW_LAUNCH_COMMAND,
            arguments=[uri, {"line": rng.start.line, "character": rng.start.character}, chain])))
    return out


async def _what_if_lenses(session: Session, scheduler: Scheduler, a: Analysed, uri: str) -> list[lsp.CodeLens]:
    """On each compiled launch, for the interpreter that fits it: ``GPU interpret: ready`` or
    ``GPU interpret: 2 blockers (get_global line 12, ...)``; clicking peeks the blockers."""
    from ..what_if import blocker_summary, blockers, compiled_modes, fitting_modes
    from .convert import to_range

    results = await scheduler.lenses.what_if_results(a)
    backends = tuple(session.config_for(a.unit).backends or ())
    out = []
    for launch in a.result.launches:
        loc = a.locate(launch.anchor.line)
        if loc is None or loc.doc.uri != uri:
            continue
        rng = to_range(launch.anchor, loc, session.caps.encoding)
        for mode in fitting_modes(launch) + compiled_modes(launch, a.text, backends):
            result = results.get(mode)
            if result is None:
                continue
            found = blockers(result, launch)
            chain = []
            for f in found:
                floc = a.locate(f.span.line)
                if floc is not None:
                    r = to_range(f.span, floc, session.caps.encoding)
                    chain.append({"uri": floc.doc.uri, "range": {
                        "start": {"line": r.start.line, "character": r.start.character},
                        "end": {"line": r.end.line, "character": r.end.character}}})
            out.append(lsp.CodeLens(range=rng, command=lsp.Command(
                title=blocker_summary(found, mode, a.tpu_generation), command=SHOW_LAUNCH_COMMAND,
                arguments=[uri, {"line": rng.start.line, "character": rng.start.character}, chain])))
    return out


def launch_chain(a: Analysed, launch, encoding: str, open_docs: dict[str, Document]) -> list[dict]:
    """The launch's context chain as LSP locations (JSON), in reading order: the launch, then
    for each context the lines that decide its mode (its ``interpret=`` or params, the callers
    it came through, in this module or another: its open text in ``open_docs``, by absolute
    path, else the file), then the kernel definitions."""
    from .convert import Location, other_doc, to_range

    out: list[dict] = []
    seen: set[tuple] = set()

    def add(span, loc: Location | None) -> None:
        if loc is None:
            return
        rng = to_range(span, loc, encoding)
        key = (loc.doc.uri, rng.start.line, rng.start.character)
        if key in seen:
            return
        seen.add(key)
        out.append({"uri": loc.doc.uri, "range": {
            "start": {"line": rng.start.line, "character": rng.start.character},
            "end": {"line": rng.end.line, "character": rng.end.character}}})

    add(launch.anchor, a.locate(launch.anchor.line))
    for ctx in launch.contexts:
        for ev in ctx.evidence:
            if ev.path:  # another module of the workspace: the open text, else the file
                doc = open_docs.get(os.path.abspath(ev.path)) or other_doc(ev.path)
                add(ev.span, Location(doc, 0) if doc is not None else None)
            else:
                add(ev.span, a.locate(ev.span.line))
    index = a.result.index
    for k in launch.kernels:
        if k.node is None or getattr(k.block, "path", None) != index.path:
            continue  # a kernel defined in another module (not placed from here)
        sp = index.span(k.node, k)
        add(type(sp)(sp.line, sp.col, sp.line, sp.col), a.locate(sp.line))
    return out
