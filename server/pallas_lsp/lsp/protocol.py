"""The JSON-RPC side of ``pallas-lsp serve``: how messages are read, checked and dispatched
before any handler in :mod:`.server` sees them."""
from __future__ import annotations

import logging

from lsprotocol import types as lsp
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

log = logging.getLogger("pallas_lsp")


# --- protocol: we keep documents ourselves (LSP line semantics, no disk reads) -------------------
class _BadRequest:
    """A request whose params did not deserialize: answered with InvalidParams, not dropped."""

    jsonrpc = "2.0"

    def __init__(self, msg_id, method: str, error: Exception) -> None:
        self.id = msg_id
        self.method = method
        self.error = error


class PallasProtocol(LanguageServerProtocol):
    """pygls's document store splits lines like str.splitlines and reads unopened files from
    disk; the server keeps its own documents, so these built-ins only forward. A request with
    malformed params gets an InvalidParams error (pygls would drop it and leave the client
    waiting)."""

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except Exception as exc:  # noqa: BLE001
            if isinstance(data, dict) and "id" in data and isinstance(data.get("method"), str):
                return _BadRequest(data["id"], data["method"], exc)
            raise

    def _check_handler_result(self, future):
        """pygls runs its built-in notification handlers (didOpen, didChange, didClose...) as
        generators and files each one's future under a fresh id that nothing ever removes: one
        future per keystroke, kept forever (the soak benchmark showed ~100 a second). Done
        futures are never needed again: drop this one."""
        try:
            super()._check_handler_result(future)
        finally:
            if any(v is future for v in self._request_futures.values()):
                # A new dict, not a deletion: pygls may be iterating the old one (shutdown
                # cancels every pending future, and each cancellation lands here).
                self._request_futures = {k: v for k, v in self._request_futures.items() if v is not future}

    def handle_message(self, message):
        if isinstance(message, _BadRequest):
            from pygls.exceptions import JsonRpcInvalidParams

            log.warning("invalid params for %s (request %r)", message.method, message.id)
            self._send_response(message.id, None, JsonRpcInvalidParams(
                f"invalid params for {message.method}").to_response_error())
            return
        return super().handle_message(message)

    @lsp_method(lsp.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params):
        if (h := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield h, (params,), None

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params):
        if (h := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield h, (params,), None

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params):
        if (h := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield h, (params,), None

    @lsp_method(lsp.NOTEBOOK_DOCUMENT_DID_OPEN)
    def lsp_notebook_document__did_open(self, params):
        if (h := self.fm.features.get(lsp.NOTEBOOK_DOCUMENT_DID_OPEN)) is not None:
            yield h, (params,), None

    @lsp_method(lsp.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def lsp_notebook_document__did_change(self, params):
        if (h := self.fm.features.get(lsp.NOTEBOOK_DOCUMENT_DID_CHANGE)) is not None:
            yield h, (params,), None

    @lsp_method(lsp.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def lsp_notebook_document__did_close(self, params):
        if (h := self.fm.features.get(lsp.NOTEBOOK_DOCUMENT_DID_CLOSE)) is not None:
            yield h, (params,), None
