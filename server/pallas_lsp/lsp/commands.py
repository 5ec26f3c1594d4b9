"""workspace/executeCommand: explain a pasted error, and the launch lens's "show where the
context comes from"."""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from ..config import Config

if TYPE_CHECKING:
    from .scheduler import Scheduler
    from .session import Session

log = logging.getLogger("pallas_lsp")
EXPLAIN_COMMAND = "pallas-lsp.explainError"
SHOW_LAUNCH_COMMAND = "pallas-lsp.showLaunch"
EXPLAIN_FAILED = {"markdown": "pallas-lsp could not explain this text.", "slugs": []}


def explain_error(session: Session, scheduler: Scheduler, *args: Any) -> dict:
    """The explanation of a pasted error: which records it matches and the rules that find it."""
    from ..explain import explain_text, explanation_markdown

    text = "\n".join(str(a) for a in args if isinstance(a, str))
    store = session.store_for(Config(records=session.settings.records))
    expl = explain_text(text, store)
    rules_by_slug: dict[str, list[tuple[str, str]]] = {}
    for rule in session.engine_for(store).rules:
        rules_by_slug.setdefault(rule.record, []).append((rule.code, rule.name))
    return {"markdown": explanation_markdown(expl, rules_by_slug), "slugs": [e.record.slug for e in expl]}


async def show_launch(session: Session, scheduler: Scheduler, *args: Any) -> dict | None:
    """The code lens's command: show where the launch's context comes from. VS Code's extension
    peeks the chain itself (showReferences); any other client gets the editor moved to the first
    place that decides the mode (``window/showDocument``), and the chain as the result."""
    chain = [loc for loc in (args[2] if len(args) > 2 and isinstance(args[2], list) else [])
             if isinstance(loc, dict) and isinstance(loc.get("uri"), str) and isinstance(loc.get("range"), dict)]
    if not chain:
        return None
    target = chain[1] if len(chain) > 1 else chain[0]  # past the launch itself
    if session.caps.show_document:
        r = target["range"]
        try:
            await scheduler.client.window_show_document_async(lsp.ShowDocumentParams(
                uri=target["uri"], take_focus=True, selection=lsp.Range(
                    lsp.Position(int(r["start"]["line"]), int(r["start"]["character"])),
                    lsp.Position(int(r["end"]["line"]), int(r["end"]["character"])))))
        except Exception:  # noqa: BLE001 - the client could not show it: the result still says where
            log.info("window/showDocument was refused", exc_info=True)
    return {"locations": chain}
