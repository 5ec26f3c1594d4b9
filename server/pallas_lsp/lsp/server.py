"""``pallas-lsp serve``: a pygls 2 server over the analysis core, split the way ruff's is.

* :mod:`.session`: what is known of the client's session (documents, notebooks, generations,
  results, settings, caches); the only place a unit is opened or closed.
* :mod:`.scheduler`: the workers, the debounce, the analysis phases, publishing.
* one module of thin handlers per LSP area, each ``handler(session, scheduler, params)``:
  :mod:`.lifecycle`, :mod:`.workspace`, :mod:`.text_sync`, :mod:`.diagnostics`, :mod:`.hover`,
  :mod:`.actions`, :mod:`.lens`, :mod:`.commands`.

This module only wires them: :func:`create_server` builds a server and registers the handlers;
there is no module-level server."""
from __future__ import annotations

import asyncio
import logging
import sys
import traceback
from typing import Any, Callable

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from .. import __version__
from . import actions, commands, diagnostics, hover, lens, lifecycle, text_sync, workspace
from .protocol import PallasProtocol
from .scheduler import Scheduler
from .session import Session

log = logging.getLogger("pallas_lsp")


class PallasServer(LanguageServer):
    """The pygls server object: the transport's end, and the client the scheduler tells."""

    def __init__(self) -> None:
        nb_sync = lsp.NotebookDocumentSyncOptions(
            notebook_selector=[lsp.NotebookDocumentFilterWithCells(
                notebook="*", cells=[lsp.NotebookCellLanguage(language="python")])],
            save=False,
        )
        super().__init__("pallas-lsp", __version__, protocol_cls=PallasProtocol,
                         text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
                         notebook_document_sync=nb_sync)
        self.session = Session(tell=self.show_problem, note=self.log_to_client)
        self.scheduler = Scheduler(self.session, client=self)

    def report_server_error(self, error: Exception, source) -> None:
        """Log only: a malformed message from a client is not something to pop up to the user."""
        log.warning("protocol error (%s): %s", getattr(source, "__name__", source), error)

    def log_to_client(self, message: str) -> None:
        """window/logMessage: the client's output log (the server's status, e.g. the jax chosen)."""
        try:
            self.window_log_message(lsp.LogMessageParams(lsp.MessageType.Info, message))
        except Exception:  # noqa: BLE001 - before initialize there is no client to tell
            pass

    def show_problem(self, message: str) -> None:
        try:
            self.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Warning, f"pallas-lsp: {message}"))
        except Exception:  # noqa: BLE001 - before initialize there is no client to tell
            pass


def _guarded(fn: Callable, bound: tuple, default: Any) -> Callable:
    """``fn`` with the session and the scheduler bound; one that fails logs the error and
    answers ``default`` (the server never dies on a document). The wrapper's own signature is
    what pygls reads (commands' arguments are passed as they come)."""
    if asyncio.iscoroutinefunction(fn):
        async def handler(*args):
            try:
                return await fn(*bound, *args)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001
                log.error("%s failed:\n%s", fn.__name__, traceback.format_exc())
                return default
    else:
        def handler(*args):
            try:
                return fn(*bound, *args)
            except Exception:  # noqa: BLE001
                log.error("%s failed:\n%s", fn.__name__, traceback.format_exc())
                return default
    handler.__name__ = fn.__name__
    return handler


# method -> (handler, its registration options, what it answers when it fails)
FEATURES: dict[str, tuple[Callable, Any, Any]] = {
    lsp.INITIALIZE: (lifecycle.initialize, None, None),
    lsp.INITIALIZED: (lifecycle.initialized, None, None),
    lsp.WORKSPACE_DID_CHANGE_CONFIGURATION: (workspace.did_change_configuration, None, None),
    lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES: (workspace.did_change_watched_files, None, None),
    lsp.TEXT_DOCUMENT_DID_OPEN: (text_sync.did_open, None, None),
    lsp.TEXT_DOCUMENT_DID_CHANGE: (text_sync.did_change, None, None),
    lsp.TEXT_DOCUMENT_DID_CLOSE: (text_sync.did_close, None, None),
    lsp.NOTEBOOK_DOCUMENT_DID_OPEN: (text_sync.notebook_did_open, None, None),
    lsp.NOTEBOOK_DOCUMENT_DID_CHANGE: (text_sync.notebook_did_change, None, None),
    lsp.NOTEBOOK_DOCUMENT_DID_CLOSE: (text_sync.notebook_did_close, None, None),
    lsp.TEXT_DOCUMENT_DIAGNOSTIC: (diagnostics.pull_diagnostics, diagnostics.OPTIONS, diagnostics.NONE),
    lsp.TEXT_DOCUMENT_HOVER: (hover.hover, None, None),
    lsp.TEXT_DOCUMENT_CODE_ACTION: (actions.code_action, actions.OPTIONS, []),
    lsp.TEXT_DOCUMENT_CODE_LENS: (lens.code_lens, lens.OPTIONS, []),
}
COMMANDS: dict[str, tuple[Callable, Any]] = {
    commands.EXPLAIN_COMMAND: (commands.explain_error, commands.EXPLAIN_FAILED),
    commands.SHOW_LAUNCH_COMMAND: (commands.show_launch, None),
}


def create_server() -> PallasServer:
    """A server with its own session and scheduler, every handler registered."""
    ls = PallasServer()
    bound = (ls.session, ls.scheduler)
    for method, (fn, options, default) in FEATURES.items():
        ls.feature(method, options)(_guarded(fn, bound, default))
    for name, (fn, default) in COMMANDS.items():
        ls.command(name)(_guarded(fn, bound, default))
    return ls


# --- entry point ---------------------------------------------------------------------------------
def serve(tcp: str | None = None) -> int:
    try:  # `kill -USR1 <pid>` prints every thread's stack to stderr (diagnosing a stuck server)
        import faulthandler
        import signal

        faulthandler.register(signal.SIGUSR1, all_threads=True)
    except (ImportError, AttributeError, ValueError):
        pass
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("pygls").setLevel(logging.WARNING)
    from ..runtime import tune_gc

    ls = create_server()
    tune_gc(batch=False)
    # Our own transports (lsp/protocol.py): bounded reads, the LSP lifecycle, exit codes.
    from .protocol import leave_process, loopback_address, run_stdio, run_tcp

    if tcp:
        try:
            host, port = loopback_address(tcp)
        except ValueError as exc:
            print(f"pallas-lsp serve: {exc}", file=sys.stderr)
            return 2
        try:
            code = run_tcp(ls, host, port, on_session_end=ls.scheduler.reset)
        except KeyboardInterrupt:  # how a TCP server is stopped
            code = 130
        leave_process(code)
    leave_process(run_stdio(ls, sys.stdin.fileno(), sys.stdout.buffer))

