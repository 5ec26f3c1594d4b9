"""textDocument/codeAction: each finding's fixes and its suppression comment (quick fixes),
fix-all (what ``check --fix`` applies), and "Debug on CPU" on a compiled launch."""
from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from .session import uri_to_path

if TYPE_CHECKING:
    from ..analysis.findings import Finding
    from .results import Analysed
    from .scheduler import Scheduler
    from .session import Session

FIX_ALL_KIND = "source.fixAll.pallas-lsp"
OPTIONS = lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL_KIND,
                                                   lsp.CodeActionKind.RefactorRewrite], resolve_provider=False)


def _finding_for(session: Session, a: Analysed, uri: str, d: lsp.Diagnostic) -> Finding | None:
    """The finding a client's diagnostic stands for (for clients that drop ``data``)."""
    pos = session.engine_pos(uri, d.range.start, a)
    if pos is None:
        return None
    for f in a.result.findings:
        if f.code == d.code and (f.span.line, f.span.col) == pos:
            return f
    for f in a.result.findings:
        if f.code == d.code and f.span.line == pos[0]:
            return f
    return None


async def code_action(session: Session, scheduler: Scheduler, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    from ..analysis.fixes import choose_fixes, offered_preferred, offered_title, suppression_fix
    from .convert import fix_payload, payload_to_edit

    uri = params.text_document.uri
    if uri not in session.docs:
        return []
    unit = session.unit_of(uri)
    a = await scheduler.ensure(unit)
    if a is None:
        return []
    only = params.context.only or []
    actions: list[lsp.CodeAction] = []
    want_fix_all = any(str(k).startswith("source.fixAll") or str(k) == "source" for k in only)
    want_quick = not only or any(str(k).startswith("quickfix") for k in only)
    locate = a.locate
    s = session.settings
    encoding = session.caps.encoding
    if want_quick:
        for d in params.context.diagnostics:
            if d.source != "pallas-lsp":
                continue
            # (Built from the analysis, never from the diagnostic's data: a client may send any edit there.)
            f = _finding_for(session, a, uri, d)
            if s.fix_actions and f is not None:
                for fx in _offered(a, f):
                    p = fix_payload(fx, locate, encoding)
                    if p is not None:
                        actions.append(lsp.CodeAction(
                            title=offered_title(fx), kind=lsp.CodeActionKind.QuickFix, diagnostics=[d],
                            is_preferred=offered_preferred(fx, unsafe=s.unsafe_fixes), edit=payload_to_edit(p)))
            if s.ignore_comment_actions and f is not None:
                loc = locate(f.span.line)
                if loc is not None:
                    line_text = loc.doc.line(f.span.line - loc.delta - 1)
                    fx = suppression_fix(line_text, f.span.line, f)
                    p = fix_payload(fx, locate, encoding)
                    if p is not None:
                        actions.append(lsp.CodeAction(title=p["title"], kind=lsp.CodeActionKind.QuickFix,
                                                      diagnostics=[d], is_preferred=False, edit=payload_to_edit(p)))
    if want_fix_all and s.fix_actions:
        # What `check --fix` applies in one pass (with `unsafeFixes`, what `--unsafe-fixes` adds).
        edits: dict[str, list] = {}
        path = uri_to_path(a.unit)
        for fx in choose_fixes(a.result.findings, path, unsafe=s.unsafe_fixes, fixes_of=lambda f: _offered(a, f)):
            p = fix_payload(fx, locate, encoding)
            for u, es in (p["edits"] if p is not None else {}).items():
                edits.setdefault(u, []).extend(e for e in es if e not in edits.get(u, ()))
        if edits:
            actions.append(lsp.CodeAction(title="Fix all pallas-lsp problems", kind=FIX_ALL_KIND,
                                          edit=payload_to_edit({"edits": edits})))
    if s.what_if and session.config_for(unit).what_if is not False \
            and (not only or any(str(k).startswith("refactor") for k in only)):
        actions += await _debug_on_cpu_actions(session, scheduler, a, uri, params.range)
    return actions


async def _debug_on_cpu_actions(session: Session, scheduler: Scheduler, a: Analysed, uri: str,
                                rng: lsp.Range) -> list[lsp.CodeAction]:
    """"Debug on CPU": a compiled launch on the requested lines rewritten to the interpret mode
    that fits it together with the fixes that make it run there; offered only when the result
    has no blocker left (checked by analysing it)."""
    from ..analysis.engine import Engine
    from ..what_if import MODE_LABEL, debug_on_cpu, fitting_modes

    if a.slices is not None:
        return []
    live = session.docs.get(uri)
    if live is None or live.text != a.text:
        return []  # (the document moved on: the next request gets the new analysis)
    path = uri_to_path(a.unit)
    out = []
    for launch in a.result.launches:
        line = launch.anchor.line - 1
        if not (rng.start.line <= line <= rng.end.line):
            continue
        for mode in fitting_modes(launch):
            batch = Engine(session.engine.rules, caches=session.caches)
            text = a.text
            rewrite = await scheduler.worker.submit(lambda m=mode: debug_on_cpu(batch, text, path, launch.line, m))
            if rewrite.text is None:
                continue
            edit = _whole_lines_edit(text, rewrite.text, session.caps.encoding)
            out.append(lsp.CodeAction(title=f"Debug on CPU: launch in {MODE_LABEL[mode]} mode with the fixes it needs",
                                      kind=lsp.CodeActionKind.RefactorRewrite,
                                      edit=lsp.WorkspaceEdit(changes={uri: [edit]})))
    return out


def _whole_lines_edit(old: str, new: str, encoding: str) -> lsp.TextEdit:
    """One edit replacing the lines that differ (the common first and last lines kept), so the
    client keeps its cursor and folds elsewhere. Whole lines: no column to encode."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a, end_b = end_a - 1, end_b - 1
    if end_a == len(a) and a and not a[-1].endswith(("\n", "\r")):
        # (the last line has no line break: replace to the end of it)
        from .positions import to_units

        last = a[-1]
        end = lsp.Position(len(a) - 1, to_units(last, len(last), encoding))
        return lsp.TextEdit(lsp.Range(lsp.Position(start, 0), end), "".join(b[start:end_b]))
    return lsp.TextEdit(lsp.Range(lsp.Position(start, 0), lsp.Position(end_a, 0)), "".join(b[start:end_b]))


def _offered(a: Analysed, f: Finding | None) -> list:
    """The finding's fixes, built now (on request), less any whose edited text would not parse
    (judged on the blocks the edits touch)."""
    from ..analysis.cst_edits import edits_parse

    if f is None:
        return []
    index = a.result.index
    return [fx for fx in f.fixes if edits_parse(index.text, index.blocks, fx.edits)]
