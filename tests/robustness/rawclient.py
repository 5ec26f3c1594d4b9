"""A minimal LSP client over stdio that can also send what a well-behaved client never would
(garbage bytes, malformed JSON, stale ranges). Synchronous, bounded by timeouts."""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time

SERVER = [sys.executable, "-m", "pallas_lsp", "serve"]


class RawClient:
    def __init__(self, env: dict | None = None, cwd: str | None = None) -> None:
        self.proc = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env={**os.environ, **(env or {})}, cwd=cwd)
        self.inbox: queue.Queue = queue.Queue()
        self.notifications: list[dict] = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        for _ in iter(self.proc.stderr.readline, b""):
            pass

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
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
            self.inbox.put(msg)

    # --- sending ------------------------------------------------------------------------
    def raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

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
