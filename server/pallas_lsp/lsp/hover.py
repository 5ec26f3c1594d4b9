"""textDocument/hover: a finding's record, an ``interpret=`` value's meaning, a launch's contexts."""
from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

if TYPE_CHECKING:
    from .scheduler import Scheduler
    from .session import Session


async def hover(session: Session, scheduler: Scheduler, params: lsp.HoverParams) -> lsp.Hover | None:
    from ..present import finding_hover, interpret_hover, launch_hover
    from .convert import to_range

    uri = params.text_document.uri
    if uri not in session.docs:
        return None
    unit = session.unit_of(uri)
    a = await scheduler.ensure(unit)
    if a is None:
        return None
    pos = session.engine_pos(uri, params.position, a)
    if pos is None:
        return None
    line, col = pos
    locate = a.locate
    encoding = session.caps.encoding
    store = session.store(unit)
    # Every finding at the position (two kinds may name one construct: a built-in one and a
    # user's record), each with its own record's words.
    here = [f for f in a.result.findings if f.span.contains(line, col) and locate(f.span.line) is not None]
    if here:
        first = here[0]
        loc = locate(first.span.line)
        assert loc is not None
        md = "\n---\n\n".join(finding_hover(f, store) for f in here[:4])
        choice = a.release_choice
        if choice is not None and not choice.is_default:  # (whose knowledge, and why that release)
            md = md.rstrip() + f"\n\nChecked against {choice.described()}.\n"
        return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, md), to_range(first.span, loc, encoding))
    for launch in a.result.launches:
        opt = launch.options.get("interpret")
        if opt is not None:
            sp = a.result.index.span(opt[0], opt[1])
            if sp.contains(line, col) or (sp.line == line and sp.col - len("interpret=") <= col <= sp.end_col):
                md = interpret_hover(launch, sp.line)
                loc = locate(sp.line)
                if md and loc is not None:
                    return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, md), to_range(sp, loc, encoding))
        if launch.anchor.contains(line, col):
            loc = locate(launch.anchor.line)
            if loc is None:
                continue
            md = launch_hover(a.result, launch)
            if any(c.mode.value == "tpu" for c in launch.contexts):
                from ..analysis.launch_report import budget_markdown

                report = next((r for r in await scheduler.lenses.launch_reports(a) if r.launch is launch), None)
                memory = budget_markdown(report) if report is not None else None
                if memory:
                    md = md.rstrip() + "\n\n" + memory
            return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, md), to_range(launch.anchor, loc, encoding))
    return None
