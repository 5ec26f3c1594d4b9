"""The workspace: settings changed (pushed or pulled), files changed on disk."""
from __future__ import annotations

import asyncio
import logging
import os
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from .session import uri_to_path

if TYPE_CHECKING:
    from .scheduler import Scheduler
    from .session import Session

log = logging.getLogger("pallas_lsp")


async def pull_configuration(session: Session, scheduler: Scheduler) -> None:
    if not session.caps.configuration:
        return
    try:
        got = await asyncio.wait_for(scheduler.client.workspace_configuration_async(lsp.ConfigurationParams(
            items=[lsp.ConfigurationItem(section="pallasLsp")])), timeout=5)
    except Exception:  # noqa: BLE001 - a client that does not answer keeps the current settings
        log.info("workspace/configuration not answered")
        return
    if got and isinstance(got[0], dict) and session.apply_settings(got[0]):
        scheduler.refresh_all()


async def did_change_configuration(session: Session, scheduler: Scheduler,
                                   params: lsp.DidChangeConfigurationParams) -> None:
    s = params.settings
    if isinstance(s, dict) and ("pallasLsp" in s or any(k in s for k in ("select", "ignore", "debounceMs"))):
        if session.apply_settings(s):
            scheduler.refresh_all()
    else:
        await pull_configuration(session, scheduler)


def did_change_watched_files(session: Session, scheduler: Scheduler, params: lsp.DidChangeWatchedFilesParams) -> None:
    config_changed = False
    if session.program is not None and any(ch.type in (lsp.FileChangeType.Created, lsp.FileChangeType.Deleted)
                                           and ch.uri.endswith(".py") for ch in params.changes):
        scheduler.submit_workspace(session.program.files_changed)
    open_paths = session.open_paths
    for ch in params.changes:
        p = uri_to_path(ch.uri)
        if p and p.endswith(".py"):
            if os.path.abspath(p) not in open_paths:
                scheduler.module_changed(p)
        else:
            config_changed = True
    if config_changed:
        session.config_files_changed()
        scheduler.refresh_all()
    else:
        scheduler.refresh_if_pending()

