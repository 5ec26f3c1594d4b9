"""A minimal LSP client over stdio that can also send what a well-behaved client never would
(garbage bytes, malformed JSON, stale ranges). Synchronous, bounded by timeouts."""
from __future__ import annotations

import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time

SERVER = [sys.executable, "-m", "pallas_lsp", "serve"]


def _limit_memory(max_bytes: int):
    def apply() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (max_bytes, max_bytes))
    return apply


class _Pipe:
    """Where messages go: the server's stdin, or a socket."""

    def __init__(self, write, close) -> None:
        self.write = write
        self.close = close


class RawClient:
    """``memory_limit`` (bytes of address space) bounds a server fed hostile input: it fails
    with MemoryError instead of taking the machine's memory."""

    def __init__(self, env: dict | None = None, cwd: str | None = None, command: list[str] | None = None,
                 memory_limit: int | None = None) -> None:
        self.proc = subprocess.Popen(command or SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env={**os.environ, **(env or {})}, cwd=cwd,
                                     preexec_fn=_limit_memory(memory_limit) if memory_limit else None)
        self.notifications: list[dict] = []
        self.early: dict = {}  # responses that came while waiting for another
        self.next_id = 0
        self.stderr_lines: list[str] = []
        self.stderr_changed = threading.Condition()
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        self._attach(self.proc.stdout, _Pipe(self._write_stdin, lambda: None))

    def _write_stdin(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def _attach(self, out, pipe: _Pipe) -> None:
        self.pipe = pipe
        self.inbox: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, args=(out, self.inbox), daemon=True).start()

    def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in iter(self.proc.stderr.readline, b""):
            with self.stderr_changed:
                self.stderr_lines.append(line.decode("utf-8", "replace"))
                del self.stderr_lines[:-500]  # the last lines are enough to diagnose a failure
                self.stderr_changed.notify_all()

    def wait_stderr(self, pattern: str, timeout: float = 30.0) -> "re.Match[str]":
        """The first stderr line that matches ``pattern``."""
        deadline = time.monotonic() + timeout
        with self.stderr_changed:
            while True:
                for line in self.stderr_lines:
                    if m := re.search(pattern, line):
                        return m
                left = deadline - time.monotonic()
                if left <= 0 or not self.alive():
                    raise AssertionError(f"no stderr line matching {pattern!r} (rc={self.proc.poll()}):\n"
                                         + "".join(self.stderr_lines[-20:]))
                self.stderr_changed.wait(min(left, 0.5))

    def _read(self, out, inbox: queue.Queue) -> None:
        try:
            while True:
                headers = {}
                while True:
                    line = out.readline()
                    if not line:
                        inbox.put(None)
                        return
                    line = line.strip()
                    if not line:
                        break
                    k, _, v = line.decode("ascii", "replace").partition(":")
                    headers[k.strip().lower()] = v.strip()
                body = out.read(int(headers.get("content-length", "0")))
                msg = json.loads(body)
                if "id" in msg and "method" in msg:  # a request from the server: answer it
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
                    continue
                inbox.put(msg)
        except (OSError, ValueError):  # the connection went away under us
            inbox.put(None)

    # --- sending ------------------------------------------------------------------------
    def raw(self, data: bytes) -> None:
        self.pipe.write(data)

    def send(self, msg: dict) -> None:
        body = json.dumps(msg).encode()
        self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request_async(self, method: str, params) -> int:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def wait(self, rid: int, timeout: float = 30.0) -> dict:
        if rid in self.early:
            return self.early.pop(rid)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                msg = self.inbox.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if msg is None:
                raise AssertionError(f"server exited (rc={self.proc.poll()}) waiting for response {rid}")
            if msg.get("id") == rid:
                return msg
            if "method" in msg:
                self.notifications.append(msg)
            elif "id" in msg:  # another request's answer: kept for its own wait
                self.early[msg["id"]] = msg
        raise AssertionError(f"no response to request {rid} within {timeout}s")

    def request(self, method: str, params, timeout: float = 30.0) -> dict:
        return self.wait(self.request_async(method, params), timeout)

    # --- conveniences -------------------------------------------------------------------
    def initialize(self, pull: bool = True, encoding: str = "utf-16") -> dict:
        caps = {"general": {"positionEncodings": [encoding]},
                "textDocument": {"publishDiagnostics": {"relatedInformation": True}}}
        if pull:
            caps["textDocument"]["diagnostic"] = {"dynamicRegistration": False}
        res = self.request("initialize", {"processId": None, "rootUri": None, "capabilities": caps,
                                          "initializationOptions": {"debounceMs": 0}})
        self.notify("initialized", {})
        return res

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                              "version": version, "text": text}})

    def change(self, uri: str, version: int, changes: list[dict]) -> None:
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": changes})

    def diagnostics(self, uri: str, timeout: float = 60.0) -> list[dict]:
        res = self.request("textDocument/diagnostic", {"textDocument": {"uri": uri}}, timeout)
        assert "error" not in res, res
        return res["result"].get("items", [])

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> int:
        if self.alive():
            try:
                self.request("shutdown", None, timeout=30)
                self.notify("exit", None)
                return self.proc.wait(timeout=30)
            except Exception:  # noqa: BLE001
                self.proc.kill()
        return self.proc.wait(timeout=30)


class TcpClient(RawClient):
    """``pallas-lsp serve --tcp 127.0.0.1:0``: the port is read from the server's log;
    ``connect``/``disconnect`` start and end a client session."""

    def __init__(self, **kw) -> None:
        super().__init__(command=SERVER + ["--tcp", "127.0.0.1:0"], **kw)
        m = self.wait_stderr(r"listening on (\S+):(\d+)")
        self.host, self.port = m.group(1), int(m.group(2))
        self.sock: socket.socket | None = None

    def connect(self) -> None:
        sock = socket.create_connection((self.host, self.port), timeout=30)
        sock.settimeout(None)
        self.sock = sock
        self._attach(sock.makefile("rb"), _Pipe(sock.sendall, sock.close))

    def disconnect(self) -> None:
        """Leave without shutdown or exit, as a crashed editor would."""
        if self.sock is not None:
            self.sock.shutdown(socket.SHUT_RDWR)
            self.sock.close()
            self.sock = None

    def close(self) -> int:
        self.disconnect()
        self.proc.terminate()
        return self.proc.wait(timeout=30)
