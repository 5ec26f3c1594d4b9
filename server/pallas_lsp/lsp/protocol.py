"""The JSON-RPC side of ``pallas-lsp serve``: how messages are read, checked and dispatched
before any handler in :mod:`.server` sees them.

* Reading: :mod:`.framing` splits the stream with bounds; here each frame is parsed with a
  nesting bound, and a request that cannot be served still gets an error with its id.
* Lifecycle, as the LSP specification says: a request before ``initialize`` gets -32002, a
  second ``initialize`` and any request after ``shutdown`` get -32600, notifications then are
  dropped; ``exit`` ends with 0 after ``shutdown`` and 1 without.
* Transports: stdio, and ``--tcp`` on a loopback address only, one client at a time; a
  client leaving (or sending ``exit``) ends its session, not the server.
"""
from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import os
import queue
import sys
import threading
from typing import Any, Callable, NoReturn

from lsprotocol import types as lsp
from pygls.exceptions import (JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest, JsonRpcParseError,
                              JsonRpcServerNotInitialized)
from pygls.io_ import StdoutWriter
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from .framing import READ_BYTES, Frame, FrameReader, nesting_exceeds, request_id_of

log = logging.getLogger("pallas_lsp")

MAX_JSON_DEPTH = 100  # LSP messages nest a dozen levels; json.loads itself gives up near 1,000


# --- protocol ------------------------------------------------------------------------------------
class _BadRequest:
    """A request whose params did not deserialize: answered with InvalidParams, not dropped."""

    jsonrpc = "2.0"

    def __init__(self, msg_id, method: str, error: Exception) -> None:
        self.id = msg_id
        self.method = method
        self.error = error


class PallasProtocol(LanguageServerProtocol):
    """pygls's protocol with what it lacks: the LSP lifecycle (see the module docstring) and
    parsing of frames from :mod:`.framing` (:meth:`receive`). pygls's document store splits
    lines like str.splitlines and reads unopened files from disk; the server keeps its own
    documents, so these built-ins only forward. A request with malformed params gets an
    InvalidParams error (pygls would drop it and leave the client waiting)."""

    def __init__(self, server, converter) -> None:
        super().__init__(server, converter)
        self._initialized = False  # an initialize request was received (pygls keeps _shutdown)
        self.exit_code: int | None = None  # set by exit: the session is over

    def begin_session(self, writer) -> None:
        """A new client (one per process over stdio; one after another over TCP)."""
        for future in list(self._request_futures.values()):
            future.cancel()
        self._request_futures = {}
        self._result_types.clear()
        self._initialized = False
        self._shutdown = False
        self.exit_code = None
        self.set_writer(writer)

    # --- reading --------------------------------------------------------------------------------
    def receive(self, frame: Frame) -> None:
        """Parse and dispatch one frame. One that is no message is logged and dropped, and
        answered with an error when it shows it was a request and names its id."""
        if frame.problem:
            log.warning("%s", frame.problem)
        if frame.body is None:
            self._refuse(frame.head, frame.tail, JsonRpcInvalidRequest(frame.problem or "unreadable message"))
            return
        try:
            data = json.loads(frame.body)
        except RecursionError:
            data = None
            too_deep = True
        except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, a number past int's digit limit
            log.warning("a message is not valid JSON (%s): dropped", exc)
            self._refuse(frame.head, frame.body[-512:], JsonRpcParseError(f"not valid JSON: {exc}"))
            return
        else:
            too_deep = nesting_exceeds(data, MAX_JSON_DEPTH)
        if too_deep:
            error = JsonRpcInvalidRequest(f"the message nests deeper than {MAX_JSON_DEPTH} levels")
            log.warning("a message nests deeper than %d levels: dropped", MAX_JSON_DEPTH)
            if isinstance(data, dict):
                if "id" in data and isinstance(data.get("method"), str):
                    self._send_response(data["id"], None, error.to_response_error())
            else:
                self._refuse(frame.head, frame.body[-512:], error)
            return
        if not isinstance(data, dict) or "jsonrpc" not in data:
            log.warning("a message is not a JSON-RPC 2.0 object: dropped")
            if isinstance(data, dict) and "id" in data and isinstance(data.get("method"), str):
                self._send_response(data["id"], None, JsonRpcInvalidRequest("not a JSON-RPC 2.0 message")
                                    .to_response_error())
            return
        try:
            self.handle_message(self.structure_message(data))
        except BrokenPipeError:
            raise  # the client is gone: the session ends
        except Exception as exc:  # noqa: BLE001 - one bad message never ends the session
            log.warning("could not handle a message: %s", exc)
            self._server._report_server_error(exc, JsonRpcException)

    def _refuse(self, head: bytes, tail: bytes, error: JsonRpcException) -> None:
        is_request, msg_id = request_id_of(head, tail)
        if is_request:
            self._send_response(msg_id, None, error.to_response_error())

    # --- lifecycle ------------------------------------------------------------------------------
    def _lifecycle_refusal(self, method: str | None, is_request: bool) -> JsonRpcException | None:
        if method is None:  # a response to one of our requests
            return None
        if not self._initialized:
            if is_request and method == lsp.INITIALIZE:
                return None
            return JsonRpcServerNotInitialized(f"{method} before initialize")
        if is_request and method == lsp.INITIALIZE:
            return JsonRpcInvalidRequest("initialize was already received")
        if self._shutdown:
            return JsonRpcInvalidRequest(f"{method} after shutdown: only exit is accepted")
        return None

    @lsp_method(lsp.EXIT)
    def lsp_exit(self, *args):
        """pygls calls sys.exit here (and its stdio loop then drops the code: exit without
        shutdown returned 0). Record the code; the transport ends the session with it."""
        if (h := self.fm.features.get(lsp.EXIT)) is not None:
            yield h, args, None
        self.exit_code = 0 if self._shutdown else 1

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
        method = getattr(message, "method", None)
        is_request = method is not None and hasattr(message, "id")
        if method != lsp.EXIT and (refusal := self._lifecycle_refusal(method, is_request)) is not None:
            if is_request:
                log.warning("refused request %r: %s", message.id, refusal)
                self._send_response(message.id, None, refusal.to_response_error())
            else:
                log.info("dropped notification %s", refusal)
            return
        if isinstance(message, _BadRequest):
            log.warning("invalid params for %s (request %r)", message.method, message.id)
            self._send_response(message.id, None, JsonRpcInvalidParams(
                f"invalid params for {message.method}").to_response_error())
            return
        if method == lsp.INITIALIZE:
            self._initialized = True
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


# --- transports ----------------------------------------------------------------------------------
async def serve_stream(protocol: PallasProtocol, read) -> int | None:
    """Read and dispatch messages until the stream ends (None) or the client sends exit (its
    exit code). ``read`` returns the next bytes, b"" at the end."""
    reader = FrameReader(read)
    while (frame := await reader.next_frame()) is not None:
        protocol.receive(frame)
        if protocol.exit_code is not None:
            return protocol.exit_code
    return None


class _StdinReader:
    """stdin read on a daemon thread, one read per request (no read-ahead, so memory stays
    bounded), so that exiting never waits on a blocked read."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._loop = asyncio.get_running_loop()
        self._wanted: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._run, name="pallas-stdin", daemon=True).start()

    def _run(self) -> None:
        while True:
            fut = self._wanted.get()
            try:
                data = os.read(self._fd, READ_BYTES)
            except OSError as exc:
                log.warning("reading stdin: %s", exc)
                data = b""
            try:
                self._loop.call_soon_threadsafe(_resolve, fut, data)
            except RuntimeError:  # the loop is closed: the server is done
                return
            if not data:
                return

    def read(self) -> asyncio.Future:
        fut = self._loop.create_future()
        self._wanted.put(fut)
        return fut


def _resolve(fut: asyncio.Future, data: bytes) -> None:
    if not fut.done():
        fut.set_result(data)


def run_stdio(ls, stdin_fd: int, stdout) -> int:
    """Serve one client over stdin/stdout; the exit code LSP asks for (0 also when the client
    just closes the stream)."""
    ls.protocol.begin_session(StdoutWriter(stdout))

    async def main() -> int | None:
        return await serve_stream(ls.protocol, _StdinReader(stdin_fd).read)

    code: int | None = None
    try:
        code = asyncio.run(main())
    except BrokenPipeError:
        log.error("the client closed the connection; shutting down")
    finally:
        ls.shutdown()
    return 0 if code is None else code


def leave_process(code: int) -> NoReturn:
    """End the process at once with ``code``, once the client is done. The analysis threads
    are daemons and may be inside native code (libcst, RE2) at that moment: interpreter
    finalization would stop them there, and C++ aborts ("terminate called without an active
    exception", exit status -6 instead of 0). Nothing is left to clean up: every answer was
    written and flushed."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def loopback_address(spec: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``PORT``) for ``--tcp``: the host must be a loopback address, since
    anyone who can connect can drive the server. ValueError says what is wrong."""
    host, sep, port_text = spec.rpartition(":")
    if not sep:
        host, port_text = "", spec
    host = host.strip().removeprefix("[").removesuffix("]") or "127.0.0.1"
    if not port_text.isdigit() or int(port_text) > 65535:
        raise ValueError(f"--tcp {spec}: the port must be a number from 0 to 65535")
    if host == "localhost":  # what it resolves to is not ours to trust
        host = "127.0.0.1"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(f"--tcp {spec}: {host!r} is not an IP address. The server listens on loopback "
                         "only: use 127.0.0.1, ::1 or localhost") from None
    if not address.is_loopback:
        raise ValueError(f"--tcp {spec}: {host} is not a loopback address. The server listens on "
                         "loopback only (127.0.0.1, ::1, localhost): whoever can connect can drive it")
    return host, int(port_text)


def run_tcp(ls, host: str, port: int, on_session_end: Callable[[], Any]) -> int:
    """Listen on a loopback address and serve one client at a time, until interrupted. A
    client that leaves or sends exit ends its session; ``on_session_end`` then forgets its
    documents, and the next client starts afresh. A second client while one is connected is
    turned away."""
    if not ipaddress.ip_address(host).is_loopback:
        raise ValueError(f"{host} is not a loopback address")
    protocol: PallasProtocol = ls.protocol
    connected = False

    async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connected
        peer = writer.get_extra_info("peername")
        if connected:
            log.warning("turned away %s: another client is connected", peer)
            writer.close()
            return
        connected = True
        log.info("client %s connected", peer)
        protocol.begin_session(writer)
        try:
            code = await serve_stream(protocol, lambda: reader.read(READ_BYTES))
            log.info("client %s %s", peer, "left" if code is None else f"sent exit (code {code})")
        except (ConnectionError, OSError) as exc:
            log.info("client %s lost: %s", peer, exc)
        finally:
            connected = False
            writer.close()
            protocol.set_writer(_Discard())  # late results of the old session go nowhere
            on_session_end()
            log.info("waiting for the next client")

    async def main() -> None:
        srv = await asyncio.start_server(on_client, host, port)
        for sock in srv.sockets:
            name = sock.getsockname()
            log.info("listening on %s:%s (loopback only)", name[0], name[1])
        async with srv:
            await srv.serve_forever()

    try:
        asyncio.run(main())
    finally:
        ls.shutdown()
    return 0


class _Discard:
    def write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        pass
