"""initialize and initialized: the client's capabilities, the workspace root, the first settings,
the warm-up once `initialize` is answered, and the file watchers."""
from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from .. import __version__
from .positions import UTF16
from .session import uri_to_path
from .workspace import pull_configuration

if TYPE_CHECKING:
    from .scheduler import Scheduler
    from .session import Session

log = logging.getLogger("pallas_lsp")
# (a jax installed or upgraded in the workspace's environment changes the release chosen)
WATCHED = ("**/pyproject.toml", "**/*.json", "**/*.py", "**/site-packages/jax-*.dist-info/METADATA")


def initialize(session: Session, scheduler: Scheduler, params: lsp.InitializeParams) -> None:
    caps = params.capabilities
    td = caps.text_document
    ws = caps.workspace
    c = session.caps
    c.pull = bool(td and td.diagnostic)
    c.related = bool(td and td.publish_diagnostics and td.publish_diagnostics.related_information) or c.pull
    c.code_description = bool(td and td.publish_diagnostics and td.publish_diagnostics.code_description_support) \
        or c.pull
    c.refresh = bool(ws and ws.diagnostics and ws.diagnostics.refresh_support)
    c.configuration = bool(ws and ws.configuration)
    c.watch_dynamic = bool(ws and ws.did_change_watched_files and ws.did_change_watched_files.dynamic_registration)
    c.code_lens_refresh = bool(ws and ws.code_lens and ws.code_lens.refresh_support)
    c.show_document = bool(caps.window and caps.window.show_document and caps.window.show_document.support)
    root = params.root_uri or (params.workspace_folders[0].uri if params.workspace_folders else None)
    if root:
        p = uri_to_path(root)
        session.root = Path(p) if p else None
    session.init_options = params.initialization_options
    session.apply_settings(params.initialization_options)

    def warm_up() -> None:
        scheduler.warm_up(then=lambda: warm_converter(scheduler.client))

    try:  # once the answer is written (it is, before the loop runs anything else)
        asyncio.get_running_loop().call_soon(warm_up)
    except RuntimeError:  # no loop (called directly): warm up now
        warm_up()


def warm_converter(client) -> None:
    """On the loop, while the first document is analysed: have the converter build its
    functions for diagnostics (cattrs makes one per type when first asked, ~2 ms), so the
    first finding published is not the one that pays for them."""
    from .convert import SOURCE

    r = lsp.Range(lsp.Position(0, 0), lsp.Position(0, 1))
    d = lsp.Diagnostic(range=r, message="", severity=lsp.DiagnosticSeverity.Error, code="PAL000", source=SOURCE,
                       code_description=lsp.CodeDescription(href="https://example.invalid"),
                       related_information=[lsp.DiagnosticRelatedInformation(lsp.Location("file:///", r), "")],
                       data={})
    try:
        conv = client.protocol._converter
        conv.unstructure(lsp.PublishDiagnosticsParams(uri="file:///", diagnostics=[d], version=0))
        conv.unstructure(lsp.RelatedFullDocumentDiagnosticReport(items=[d], result_id="0"))
    except Exception:  # noqa: BLE001 - an optimisation only
        log.debug("warming the converter up failed", exc_info=True)


async def initialized(session: Session, scheduler: Scheduler, params: lsp.InitializedParams) -> None:
    client = scheduler.client
    enc = client.workspace.position_encoding
    session.caps.encoding = str(getattr(enc, "value", enc) or UTF16)
    log.info("pallas-lsp %s: encoding %s, %s diagnostics", __version__, session.caps.encoding,
             "pull" if session.caps.pull else "push")
    if session.caps.watch_dynamic:
        watchers = [lsp.FileSystemWatcher(glob_pattern=g) for g in WATCHED]
        try:
            await client.client_register_capability_async(lsp.RegistrationParams(registrations=[
                lsp.Registration(id="pallas-lsp-watch", method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                 register_options=lsp.DidChangeWatchedFilesRegistrationOptions(watchers))]))
        except Exception:  # noqa: BLE001
            log.exception("registering file watchers")
    await pull_configuration(session, scheduler)
