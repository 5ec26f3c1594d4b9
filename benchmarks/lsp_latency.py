#!/usr/bin/env python3
"""Diagnostics latency of language servers while a Pallas kernel file is edited.

A small stdio JSON-RPC LSP client (standard library only). For every server it starts
the server, initializes it (advertising pull diagnostics, publishDiagnostics with
versionSupport and the utf-16 position encoding), opens a file, then applies the same
scripted sequence of incremental ``didChange`` edits and records, per edit, the time
from sending ``didChange`` to having the diagnostics for that version:

* a server that advertises ``diagnosticProvider`` is asked with ``textDocument/diagnostic``
  right after the change; the latency ends at the response (pull);
* otherwise the latency ends at the ``textDocument/publishDiagnostics`` whose ``version``
  is the new version, or, for a publish without a version, the first publish after the
  change (push).

Servers that debounce their own publishing (pylsp 500 ms, jedi-language-server 1000 ms)
are reported with that debounce in its own column and with "p50 - debounce", so the
delay they choose is not mistaken for work, nor hidden.

    .bench-venv/bin/python benchmarks/lsp_latency.py --generate 2000 --repeat 3
    .bench-venv/bin/python benchmarks/lsp_latency.py --file some_kernels.py \\
        --server ours --server ruff
    .bench-venv/bin/python benchmarks/lsp_latency.py --soak 5000 --server ours

See benchmarks/README.md for what each figure means.
"""
from __future__ import annotations

import argparse
import ast
import asyncio
import json
import os
import re
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import genkernels  # noqa: E402
from common import code_state, compile_package, describe_code_state, resolve  # noqa: E402

# name -> (command, initializationOptions, the server's own publish debounce in ms)
DEFAULT_SERVERS: dict[str, tuple[str, Any, float]] = {
    "ours": ("pallas-lsp serve", None, 0.0),  # default settings, as users get it
    "ruff": ("ruff server", None, 0.0),
    # pylsp lints in a trailing debounce (pylsp/python_lsp.py: LINT_DEBOUNCE_S = 0.5).
    "pylsp": ("pylsp", None, 500.0),
    # jedi-language-server publishes through @debounce(1, keyed_by="uri").
    "jedi": ("jedi-language-server",
             {"diagnostics": {"enable": True, "didOpen": True, "didChange": True}}, 1000.0),
}
DEFAULT_ORDER = ["ours", "ruff", "pylsp", "jedi"]


# ---------------------------------------------------------------------------------------
# Documents and edits (LSP positions: 0-based lines, utf-16 code units)
# ---------------------------------------------------------------------------------------

_EOL = re.compile(r"\r\n|\r|\n")


class Doc:
    """A text document as the server sees it, to apply our own changes to."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._index()

    def _index(self) -> None:
        self.starts = [0] + [m.end() for m in _EOL.finditer(self.text)]

    def line_text(self, line: int) -> str:
        start = self.starts[line]
        m = _EOL.search(self.text, start)
        return self.text[start:m.start() if m else len(self.text)]

    def offset(self, line: int, char16: int) -> int:
        if line >= len(self.starts):
            return len(self.text)
        s = self.line_text(line)
        units = 0
        for i, ch in enumerate(s):
            if units >= char16:
                return self.starts[line] + i
            units += 2 if ord(ch) > 0xFFFF else 1
        return self.starts[line] + len(s)

    def apply(self, start: tuple[int, int], end: tuple[int, int], new: str) -> None:
        a, b = self.offset(*start), self.offset(*end)
        self.text = self.text[:a] + new + self.text[b:]
        self._index()


@dataclass
class Edit:
    kind: str  # type | insert-line | delete-line | insert-lines | delete-lines | syntax-error | syntax-fix | far-*
    desc: str
    start: tuple[int, int]
    end: tuple[int, int]
    text: str

    def lsp(self) -> dict:
        return {"range": {"start": {"line": self.start[0], "character": self.start[1]},
                          "end": {"line": self.end[0], "character": self.end[1]}},
                "text": self.text}


BURST_TEXT = "acc = acc + 1.0 * 2.0"  # typed one character per change, as fast as --burst-interval-ms

_LAUNCHERS = {"pallas_call", "kernel", "core_map", "emit_pipeline", "run_scoped", "run_state"}


def _callee_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _launched_names(tree: ast.AST) -> set[str]:
    """Names of functions handed to a Pallas launcher (directly or via functools.partial)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = _callee_name(node.func)
        if callee == "partial" and node.args and _callee_name(node.args[0]) in _LAUNCHERS:
            continue  # @functools.partial(plgpu.kernel, ...): handled as a decorator below
        if callee in _LAUNCHERS and node.args:
            first = node.args[0]
            if isinstance(first, ast.Call) and _callee_name(first.func) == "partial" and first.args:
                first = first.args[0]
            if isinstance(first, ast.Name):
                names.add(first.id)
    return names


def _is_launcher_decorator(dec: ast.AST) -> bool:
    if isinstance(dec, ast.Call):
        if _callee_name(dec.func) == "partial" and dec.args:
            return _callee_name(dec.args[0]) in _LAUNCHERS
        return _callee_name(dec.func) in _LAUNCHERS
    return _callee_name(dec) in _LAUNCHERS


def _stmt_first_line(stmt: ast.stmt) -> int:
    """1-based first line of a statement, decorators included."""
    decs = getattr(stmt, "decorator_list", None) or []
    return min([stmt.lineno] + [d.lineno for d in decs])


def find_kernels(tree: ast.AST) -> list[ast.FunctionDef]:
    launched = _launched_names(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if ("kernel" in node.name or node.name in launched
                    or any(_is_launcher_decorator(d) for d in node.decorator_list)):
                out.append(node)
    out.sort(key=lambda n: n.lineno)
    return out


def _body_anchor(fn: ast.FunctionDef, lines: list[str]) -> tuple[int, str]:
    """0-based line at which a new statement can be inserted at the top of fn's body, and its indent."""
    first = fn.body[0]
    if (len(fn.body) > 1 and isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        first = fn.body[1]  # after the docstring
    line = _stmt_first_line(first) - 1
    if first.lineno == fn.lineno:  # `def f(): return x` on one line: no safe anchor
        raise ValueError("one-line function")
    text = lines[line]
    indent = text[:len(text) - len(text.lstrip())]
    return line, indent


def build_script(text: str) -> tuple[list[Edit], dict]:
    """The scripted edits for a file. Every group undoes itself, so the file ends as it began."""
    doc = Doc(text)
    lines = [doc.line_text(i) for i in range(len(doc.starts))]  # one index (not one per line)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        tree = None
    kernels = find_kernels(tree) if tree is not None else []
    anchors: list[tuple[int, str, str]] = []  # (line, indent, function name)
    for fn in kernels:
        try:
            ln, ind = _body_anchor(fn, lines)
        except (ValueError, IndexError):
            continue
        anchors.append((ln, ind, fn.name))
    info: dict[str, Any] = {"kernels_found": len(kernels)}
    if not anchors and tree is not None:  # no kernel: any function
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                try:
                    ln, ind = _body_anchor(node, lines)
                    anchors.append((ln, ind, node.name))
                except (ValueError, IndexError):
                    pass
        anchors.sort()
    nlines = len(lines)
    if not anchors:  # no function at all: top level, middle of the file
        anchors.append((nlines // 2, "", "<module>"))

    def nearest(frac: float) -> tuple[int, str, str]:
        target = nlines * frac
        return min(anchors, key=lambda a: abs(a[0] - target))

    main = nearest(0.5)
    second = nearest(0.25)
    if second == main and len(anchors) > 1:
        second = anchors[0] if anchors[0] != main else anchors[-1]
    info["kernel"] = {"name": main[2], "line": main[0] + 1}
    info["second_kernel"] = {"name": second[2], "line": second[0] + 1}

    edits: list[Edit] = []
    # 1. Typing, one character at a time, on a new line in the kernel body.
    L, ind, name = main
    edits.append(Edit("insert-line", f"new empty line in {name}", (L, 0), (L, 0), ind + "\n"))
    typed = "scale = 2.0"
    for k, ch in enumerate(typed):
        col = len(ind) + k
        edits.append(Edit("type", f"type {ch!r} in {name}", (L, col), (L, col), ch))
    edits.append(Edit("delete-line", f"delete typed line in {name}", (L, 0), (L + 1, 0), ""))
    # 2. Whole lines inserted and deleted (second kernel, then the main one).
    for (L2, ind2, name2) in (second, main):
        block = (f"{ind2}tmp_a = jnp.zeros((8, 128), jnp.float32)\n"
                 f"{ind2}tmp_b = tmp_a + 1.0\n"
                 f"{ind2}del tmp_a, tmp_b\n")
        edits.append(Edit("insert-lines", f"paste 3 lines into {name2}", (L2, 0), (L2, 0), block))
        edits.append(Edit("delete-lines", f"delete 3 lines from {name2}", (L2, 0), (L2 + 3, 0), ""))
    # 3. A syntax error (an unclosed parenthesis), then its fix, then the line goes.
    opened = f"{ind}bad = (1.0 +"
    edits.append(Edit("syntax-error", f"unclosed '(' in {name}", (L, 0), (L, 0), opened + "\n"))
    edits.append(Edit("syntax-fix", f"close the '(' in {name}", (L, len(opened)), (L, len(opened)), " 2.0)"))
    edits.append(Edit("delete-line", f"delete fixed line in {name}", (L, 0), (L + 1, 0), ""))
    # 4. An edit far from any kernel: at the module-level boundary farthest from every kernel.
    spans = [(_stmt_first_line(k) - 1, (k.end_lineno or k.lineno) - 1) for k in kernels]
    cands = []
    if tree is not None:
        cands = [_stmt_first_line(s) - 1 for s in tree.body]
    if text.endswith(("\n", "\r")):
        cands.append(nlines - 1)  # the empty "line" after the final newline
    if not cands:
        cands = [0]

    def dist(c: int) -> int:
        if not spans:
            return abs(c - main[0])
        return min(0 if a <= c <= b else min(abs(c - a), abs(c - b)) for a, b in spans)

    far = max(cands, key=lambda c: (dist(c), -c))
    info["far_line"] = far + 1
    info["far_distance"] = dist(far)
    base = "_BENCH_FAR = 1"
    edits.append(Edit("far-insert", "insert a top-level line far from kernels", (far, 0), (far, 0), base + "\n"))
    for k, ch in enumerate("00"):
        col = len(base) + k
        edits.append(Edit("far-type", f"type {ch!r} far from kernels", (far, col), (far, col), ch))
    edits.append(Edit("far-delete", "delete the far line", (far, 0), (far + 1, 0), ""))
    return edits, info


# ---------------------------------------------------------------------------------------
# JSON-RPC over stdio
# ---------------------------------------------------------------------------------------

class ServerDied(Exception):
    pass


class RequestTimeout(Exception):
    pass


class ResponseError(Exception):
    def __init__(self, error: dict) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code = error.get("code")
        self.data = error.get("data")


def _uri(path: Path) -> str:
    return path.resolve().as_uri()


class Client:
    def __init__(self, name: str, argv: list[str], cwd: Path, log_path: Path) -> None:
        self.name = name
        self.argv = argv
        self.cwd = cwd
        self.log_path = log_path
        self.proc: asyncio.subprocess.Process | None = None
        self._next_id = 0
        self._pending: dict[int, asyncio.Future] = {}
        self._waiters: list[tuple[str, int | None, float, asyncio.Future]] = []
        self.publishes: dict[str, list[tuple[float, int | None, int]]] = {}
        self.pull_registered = False
        self.server_errors: list[str] = []
        self._reader: asyncio.Task | None = None
        self._dead: BaseException | None = None

    async def start(self) -> None:
        self._log = open(self.log_path, "wb")
        self.proc = await asyncio.create_subprocess_exec(
            *self.argv, cwd=str(self.cwd), stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=self._log, limit=1 << 24)
        self._reader = asyncio.create_task(self._read_loop())

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def _send(self, msg: dict) -> float:
        if self._dead is not None:
            raise ServerDied(str(self._dead))
        body = json.dumps(msg, separators=(",", ":")).encode("utf-8")
        assert self.proc is not None and self.proc.stdin is not None
        t = time.perf_counter()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        try:
            await self.proc.stdin.drain()
        except (ConnectionError, BrokenPipeError) as e:
            raise ServerDied(f"stdin closed: {e}") from e
        return t

    async def notify(self, method: str, params: Any) -> float:
        """Send a notification; returns the time just before it was written."""
        return await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def request_start(self, method: str, params: Any) -> tuple[float, asyncio.Future]:
        self._next_id += 1
        rid = self._next_id
        fut = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        t = await self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        fut.rid = rid  # type: ignore[attr-defined]
        fut.method = method  # type: ignore[attr-defined]
        return t, fut

    async def wait_response(self, fut: asyncio.Future, timeout: float) -> tuple[float, Any]:
        try:
            t, msg = await asyncio.wait_for(asyncio.shield(fut), timeout)
        except asyncio.TimeoutError:
            self._pending.pop(getattr(fut, "rid", -1), None)
            raise RequestTimeout(f"{getattr(fut, 'method', '?')}: no answer in {timeout:g} s") from None
        if "error" in msg:
            raise ResponseError(msg["error"])
        return t, msg.get("result")

    async def request(self, method: str, params: Any, timeout: float) -> tuple[float, float, Any]:
        t0, fut = await self.request_start(method, params)
        t1, result = await self.wait_response(fut, timeout)
        return t0, t1, result

    def expect_publish(self, uri: str, version: int | None, since: float) -> asyncio.Future:
        """A future for the first publish for uri with this version (or, without one, after since)."""
        fut = asyncio.get_running_loop().create_future()
        self._waiters.append((uri, version, since, fut))
        return fut

    async def wait_publish(self, fut: asyncio.Future, timeout: float) -> tuple[float, int | None, int]:
        try:
            return await asyncio.wait_for(fut, timeout)
        except asyncio.TimeoutError:
            raise RequestTimeout(f"publishDiagnostics: none in {timeout:g} s") from None

    async def _read_loop(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        out = self.proc.stdout
        try:
            while True:
                length = None
                while True:
                    line = await out.readline()
                    if not line:
                        raise ServerDied("server closed its stdout")
                    line = line.strip()
                    if not line:
                        if length is not None:
                            break
                        continue
                    k, _, v = line.decode("ascii", "replace").partition(":")
                    if k.strip().lower() == "content-length":
                        length = int(v.strip())
                body = await out.readexactly(length)
                t = time.perf_counter()
                self._dispatch(json.loads(body), t)
        except (ServerDied, asyncio.IncompleteReadError, ValueError) as e:
            self._dead = e if isinstance(e, ServerDied) else ServerDied(f"stream broken: {e!r}")
            for fut in list(self._pending.values()):
                if not fut.done():
                    fut.set_exception(self._dead)
            for *_, fut in self._waiters:
                if not fut.done():
                    fut.set_exception(self._dead)

    def _dispatch(self, msg: dict, t: float) -> None:
        if "method" in msg and "id" in msg:  # a request from the server
            asyncio.get_running_loop().create_task(self._answer(msg))
        elif "method" in msg:
            method = msg["method"]
            params = msg.get("params") or {}
            if method == "textDocument/publishDiagnostics":
                uri = params.get("uri")
                version = params.get("version")
                n = len(params.get("diagnostics") or [])
                self.publishes.setdefault(uri, []).append((t, version, n))
                keep = []
                for w in self._waiters:
                    wuri, wver, since, fut = w
                    if fut.done():
                        continue
                    if wuri == uri and ((version is None and t >= since)
                                        or (version is not None and wver is not None and version >= wver)
                                        or (wver is None and t >= since)):
                        fut.set_result((t, version, n))
                    else:
                        keep.append(w)
                self._waiters = keep
            elif method == "window/showMessage" and params.get("type") == 1:
                self.server_errors.append(str(params.get("message"))[:300])
        elif "id" in msg:
            fut = self._pending.pop(msg["id"], None)
            if fut is not None and not fut.done():
                fut.set_result((t, msg))

    async def _answer(self, msg: dict) -> None:
        method, params = msg["method"], msg.get("params") or {}
        result: Any = None
        error = None
        if method == "workspace/configuration":
            result = [None for _ in params.get("items", [])]
        elif method == "client/registerCapability":
            for reg in params.get("registrations", []):
                if reg.get("method") == "textDocument/diagnostic":
                    self.pull_registered = True
        elif method == "workspace/applyEdit":
            result = {"applied": False}
        elif method in ("window/workDoneProgress/create", "client/unregisterCapability",
                        "window/showMessageRequest", "window/showDocument") or method.endswith("/refresh"):
            result = None
        else:
            error = {"code": -32601, "message": f"benchmark client does not handle {method}"}
        reply: dict = {"jsonrpc": "2.0", "id": msg["id"]}
        if error:
            reply["error"] = error
        else:
            reply["result"] = result
        try:
            await self._send(reply)
        except ServerDied:
            pass

    async def close(self, timeout: float = 5.0) -> int | None:
        if self.proc is None:
            return None
        if self._dead is None:
            try:
                await self.request("shutdown", None, timeout)
                await self.notify("exit", None)
            except Exception:  # noqa: BLE001 -- a server that died mid-shutdown is what this measures
                pass
        try:
            await asyncio.wait_for(self.proc.wait(), timeout)
        except asyncio.TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 -- the reader's end is not the result
                pass
        self._log.close()
        return self.proc.returncode

    def log_tail(self, n: int = 15) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-n:])


def process_cpu_ms(pid: int) -> float | None:
    """User + system CPU of a process so far (Linux /proc), in ms."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def client_capabilities(pull: bool = True, lens: bool = False) -> dict:
    caps = {
        "general": {"positionEncodings": ["utf-16"]},
        "textDocument": {
            "synchronization": {"dynamicRegistration": False, "didSave": False,
                                "willSave": False, "willSaveWaitUntil": False},
            "publishDiagnostics": {"versionSupport": True, "relatedInformation": True,
                                   "codeDescriptionSupport": True, "dataSupport": True},
            "diagnostic": {"dynamicRegistration": False, "relatedDocumentSupport": False},
        },
        "workspace": {"configuration": False, "workspaceFolders": True},
        "window": {"workDoneProgress": False},
    }
    if not pull:  # --push-only: servers must publish
        del caps["textDocument"]["diagnostic"]
    if lens:  # (as VS Code: code lenses, and the server may ask for them again)
        caps["textDocument"]["codeLens"] = {"dynamicRegistration": False}
        caps["workspace"]["codeLens"] = {"refreshSupport": True}
    return caps


# ---------------------------------------------------------------------------------------
# Running one server
# ---------------------------------------------------------------------------------------

@dataclass
class ServerSpec:
    name: str
    argv: list[str]
    init_options: Any
    debounce_ms: float


@dataclass
class EditResult:
    index: int
    kind: str
    desc: str
    version: int
    latency_ms: float | None
    diagnostics: int | None
    error: str | None = None


@dataclass
class RunResult:
    server: str
    file: str
    repeat: int
    mode: str = "?"  # pull | push: what the session used
    client: str = "pull"  # pull | push: what the client advertised (--modes)
    sync: str = "?"  # incremental | full
    init_ms: float | None = None
    init_cpu_ms: float | None = None  # CPU the server process used up to its initialize answer
    open_ms: float | None = None
    open_diagnostics: int | None = None
    edits: list[EditResult] = field(default_factory=list)
    bursts: list[float] = field(default_factory=list)  # last keystroke of a burst -> its diagnostics, ms
    lenses: list[float] = field(default_factory=list)  # --lens: codeLens request -> its answer, ms
    error: str | None = None
    text_matches: bool | None = None
    server_info: dict | None = None


class Session:
    """One started and initialized server."""

    def __init__(self, spec: ServerSpec, root: Path, timeout: float, logdir: Path, tag: str,
                 advertise_pull: bool = True, lens: bool = False) -> None:
        self.advertise_pull = advertise_pull
        self.lens = lens
        self.spec = spec
        self.root = root
        self.timeout = timeout
        self.client = Client(spec.name, spec.argv, root, logdir / f"{spec.name}-{tag}.stderr.log")
        self.pull = False
        self.full_sync = False
        self.docs: dict[str, Doc] = {}
        self.versions: dict[str, int] = {}
        self.server_info: dict | None = None
        self.init_cpu_ms: float | None = None

    async def start(self) -> float:
        t0 = time.perf_counter()
        await self.client.start()
        params = {
            "processId": os.getpid(),
            "clientInfo": {"name": "pallas-lsp-benchmark", "version": "1"},
            "rootUri": _uri(self.root),
            "rootPath": str(self.root),
            "workspaceFolders": [{"uri": _uri(self.root), "name": self.root.name or "root"}],
            "capabilities": client_capabilities(self.advertise_pull, self.lens),
        }
        if self.spec.init_options is not None:
            params["initializationOptions"] = self.spec.init_options
        _, t1, result = await self.client.request("initialize", params, self.timeout)
        self.init_cpu_ms = process_cpu_ms(self.client.pid)
        caps = (result or {}).get("capabilities", {})
        self.server_info = (result or {}).get("serverInfo")
        self.pull = bool(caps.get("diagnosticProvider")) and self.advertise_pull
        sync = caps.get("textDocumentSync")
        kind = sync.get("change") if isinstance(sync, dict) else sync
        self.full_sync = kind == 1
        self.capabilities = caps
        await self.client.notify("initialized", {})
        await asyncio.sleep(0)  # let registrations sent right after initialized arrive
        if self.client.pull_registered and self.advertise_pull:
            self.pull = True
        return (t1 - t0) * 1000

    @property
    def mode(self) -> str:
        return "pull" if (self.pull or (self.client.pull_registered and self.advertise_pull)) else "push"

    async def _pull(self, uri: str, t_sent: float) -> tuple[float, int]:
        """Ask for diagnostics; retry on ContentModified/ServerCancelled until the timeout."""
        deadline = t_sent + self.timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise RequestTimeout(f"textDocument/diagnostic: no answer in {self.timeout:g} s")
            try:
                _, t1, result = await self.client.request(
                    "textDocument/diagnostic", {"textDocument": {"uri": uri}}, left)
            except ResponseError as e:
                if e.code in (-32801, -32802):  # ContentModified, ServerCancelled
                    continue
                raise
            result = result or {}
            return t1, len(result.get("items") or [])

    async def open(self, path: Path, text: str) -> tuple[float, int]:
        uri = _uri(path)
        self.docs[uri] = Doc(text)
        self.versions[uri] = 1
        params = {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}
        if self.mode == "pull":
            t0 = await self.client.notify("textDocument/didOpen", params)
            t1, n = await self._pull(uri, t0)
        else:
            fut = self.client.expect_publish(uri, 1, time.perf_counter())
            t0 = await self.client.notify("textDocument/didOpen", params)
            t1, _, n = await self.client.wait_publish(fut, self.timeout)
        return (t1 - t0) * 1000, n

    async def send_change(self, uri: str, edit: Edit) -> tuple[int, float]:
        doc = self.docs[uri]
        doc.apply(edit.start, edit.end, edit.text)
        self.versions[uri] += 1
        version = self.versions[uri]
        change = {"text": doc.text} if self.full_sync else edit.lsp()
        t0 = await self.client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]})
        return version, t0

    async def change(self, uri: str, edit: Edit) -> tuple[int, float, int]:
        """Apply one edit and wait for its diagnostics: (version, latency ms, diagnostic count)."""
        if self.mode == "pull":
            version, t0 = await self.send_change(uri, edit)
            t1, n = await self._pull(uri, t0)
        else:
            fut = self.client.expect_publish(uri, self.versions[uri] + 1, time.perf_counter())
            version, t0 = await self.send_change(uri, edit)
            t1, _, n = await self.client.wait_publish(fut, self.timeout)
        return version, (t1 - t0) * 1000, n

    async def burst(self, uri: str, line: int, col: int, typed: str, interval_s: float) -> float:
        """Type ``typed`` at (line, col) one character every ``interval_s`` without waiting for
        diagnostics (pull: a request after every change, as editors do, none awaited); the
        latency from the last change to the diagnostics of the last version, in ms."""
        pulls = []
        fut = None
        t0 = 0.0
        for k, ch in enumerate(typed):
            e = Edit("burst", f"type {ch!r}", (line, col + k), (line, col + k), ch)
            if self.mode == "push" and k == len(typed) - 1:
                fut = self.client.expect_publish(uri, self.versions[uri] + 1, time.perf_counter())
            _, t0 = await self.send_change(uri, e)
            if self.mode == "pull":
                pulls.append((await self.client.request_start("textDocument/diagnostic",
                                                              {"textDocument": {"uri": uri}}))[1])
            if k < len(typed) - 1:
                await asyncio.sleep(interval_s)
        if self.mode == "pull":
            for f in pulls[:-1]:
                f.add_done_callback(lambda f: f.exception() if not f.cancelled() else None)
            t1, _ = await self.client.wait_response(pulls[-1], self.timeout)
        else:
            assert fut is not None
            t1, _, _ = await self.client.wait_publish(fut, self.timeout)
        return (t1 - t0) * 1000

    async def close(self) -> None:
        await self.client.close()


async def run_file(spec: ServerSpec, path: Path, repeat: int, timeout: float, logdir: Path,
                   root: Path | None, max_consecutive_timeouts: int = 3, pull: bool = True,
                   bursts: int = 0, burst_interval_s: float = 0.03, lens: bool = False) -> RunResult:
    text = path.read_text(encoding="utf-8")
    edits, _ = build_script(text)
    res = RunResult(server=spec.name, file=str(path), repeat=repeat, client="pull" if pull else "push")
    sess = Session(spec, root or path.parent, timeout, logdir,
                   f"{path.stem}-{repeat}-{'pull' if pull else 'push'}", pull, lens)
    try:
        res.init_ms = await sess.start()
        res.init_cpu_ms = sess.init_cpu_ms
        res.mode = sess.mode
        res.server_info = sess.server_info
        res.sync = "full" if sess.full_sync else "incremental"
        uri = _uri(path)
        res.open_ms, res.open_diagnostics = await sess.open(path, text)
        consecutive = 0
        # --lens: after each edit's diagnostics the client asks for the code lenses, as VS Code
        # does after a change, and goes on typing without waiting: their work competes with the
        # next edit's (servers without a codeLensProvider are not asked).
        lens_asks: list[tuple[float, asyncio.Future]] = []
        ask_lens = lens and bool(getattr(sess, "capabilities", {}).get("codeLensProvider"))
        for i, e in enumerate(edits):
            try:
                version, ms, n = await sess.change(uri, e)
                res.edits.append(EditResult(i, e.kind, e.desc, version, ms, n))
                if ask_lens:
                    lens_asks.append(await sess.client.request_start("textDocument/codeLens",
                                                                     {"textDocument": {"uri": uri}}))
                consecutive = 0
            except (RequestTimeout, ResponseError) as err:
                res.edits.append(EditResult(i, e.kind, e.desc, sess.versions[uri], None, None, str(err)))
                consecutive += 1
                if consecutive >= max_consecutive_timeouts:
                    res.error = f"gave up after {consecutive} edits without diagnostics: {err}"
                    break
        # Typing fast: bursts of keystrokes on a new line of the kernel (the script's first
        # edit), nothing awaited in between; then the line goes again.
        first = edits[0] if edits and edits[0].kind == "insert-line" else None
        for _ in range(bursts if first is not None and not res.error else 0):
            indent = first.text[:-1]
            line = first.start[0]
            await sess.change(uri, Edit("insert-line", "burst line", (line, 0), (line, 0), first.text))
            res.bursts.append(await sess.burst(uri, line, len(indent), BURST_TEXT, burst_interval_s))
            await sess.change(uri, Edit("delete-line", "burst line", (line, 0), (line + 1, 0), ""))
        for t_sent, fut in lens_asks:
            t_done, _ = await sess.client.wait_response(fut, sess.timeout)
            res.lenses.append((t_done - t_sent) * 1000)
        res.text_matches = sess.docs[uri].text == text
    except (RequestTimeout, ResponseError, ServerDied, OSError) as err:
        res.error = f"{type(err).__name__}: {err}"
        tail = sess.client.log_tail()
        if tail:
            res.error += "\n    stderr: " + tail.replace("\n", "\n    stderr: ")
    finally:
        if sess.client.server_errors:
            msg = "; ".join(sess.client.server_errors[:3])
            res.error = (res.error + "; " if res.error else "") + f"server error messages: {msg}"
        await sess.close()
    return res


# ---------------------------------------------------------------------------------------
# Soak: many files, many edits, memory samples
# ---------------------------------------------------------------------------------------

def _proc_status(pid: int) -> dict[str, int]:
    out = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                out[k] = int(v.split()[0])  # kB
    except OSError:
        pass
    return out


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                kids = Path(f"/proc/{p}/task/{task}/children").read_text().split()
                for k in kids:
                    out.append(int(k))
                    todo.append(int(k))
        except OSError:
            pass
    return out


def memory_sample(pid: int) -> dict[str, float]:
    main = _proc_status(pid)
    kids = _descendants(pid)
    tree_rss = main.get("VmRSS", 0) + sum(_proc_status(k).get("VmRSS", 0) for k in kids)
    return {"rss_mb": main.get("VmRSS", 0) / 1024, "hwm_mb": main.get("VmHWM", 0) / 1024,
            "tree_rss_mb": tree_rss / 1024, "children": len(kids)}


async def soak(spec: ServerSpec, n_edits: int, n_files: int, lines: int, every: int, timeout: float,
               workdir: Path, logdir: Path, time_limit: float, pull: bool = True) -> dict:
    files = genkernels.write_files(workdir / f"soak-{spec.name}", n_files, lines, seed=1000)
    scripts = [build_script(p.read_text())[0] for p in files]
    per_file = statistics.mean(len(sc) for sc in scripts)
    print(f"  {spec.name}: each file's script has ~{per_file:.0f} edits, so {n_edits} edits are "
          f"{n_edits / (n_files * per_file):.1f} pass(es) over every file (texts repeat from the second pass)",
          flush=True)
    sess = Session(spec, workdir / f"soak-{spec.name}", timeout, logdir, "soak", pull)
    out: dict[str, Any] = {"server": spec.name, "files": n_files, "lines": lines, "edits": n_edits,
                           "samples": [], "error": None}
    t_start = time.perf_counter()
    try:
        out["init_ms"] = await sess.start()
        out["mode"] = sess.mode
        uris = [_uri(p) for p in files]
        t0 = time.perf_counter()
        if sess.mode == "pull":
            for p, u in zip(files, uris):
                await sess.open(p, p.read_text())
        else:  # open everything, then wait until every file has been published once
            futs = []
            for p, u in zip(files, uris):
                futs.append(sess.client.expect_publish(u, 1, time.perf_counter()))
                sess.docs[u] = Doc(p.read_text())
                sess.versions[u] = 1
                await sess.client.notify("textDocument/didOpen", {"textDocument": {
                    "uri": u, "languageId": "python", "version": 1, "text": sess.docs[u].text}})
            await asyncio.wait_for(asyncio.gather(*futs), timeout * 4)
        out["open_all_s"] = time.perf_counter() - t0
        s = memory_sample(sess.client.pid)
        s.update(edits=0, window_p50_ms=None, window_p95_ms=None, settle_ms=None)
        out["samples"].append(s)
        print(_soak_row(spec.name, s), flush=True)
        cursors = [0] * n_files
        window: list[float] = []
        done = 0
        consecutive = 0
        while done < n_edits:
            if time.perf_counter() - t_start > time_limit:
                out["error"] = f"stopped at the time limit ({time_limit:g} s) after {done} edits"
                break
            f = done % n_files
            script = scripts[f]
            e = script[cursors[f] % len(script)]
            cursors[f] += 1
            if sess.mode == "pull":
                try:
                    _, ms, _ = await sess.change(uris[f], e)
                    window.append(ms)
                    consecutive = 0
                except (RequestTimeout, ResponseError) as err:
                    consecutive += 1
                    if consecutive >= 3:
                        out["error"] = f"gave up: {err}"
                        break
            else:
                await sess.send_change(uris[f], e)
            done += 1
            if done % every == 0 or done == n_edits:
                settle = None
                if sess.mode == "push":
                    t_s = time.perf_counter()
                    futs = [sess.client.expect_publish(u, sess.versions[u], 0.0) for u in uris]
                    # Already-published versions resolve nothing: check the log first.
                    for u, fut in zip(uris, futs):
                        pubs = sess.client.publishes.get(u, [])
                        if any(v is not None and v >= sess.versions[u] for _, v, _ in pubs) and not fut.done():
                            fut.set_result((t_s, sess.versions[u], 0))
                    try:
                        await asyncio.wait_for(asyncio.gather(*futs), timeout * 4)
                    except asyncio.TimeoutError:
                        out["error"] = "push server did not publish every file's latest version in time"
                    settle = (time.perf_counter() - t_s) * 1000
                s = memory_sample(sess.client.pid)
                s.update(edits=done, window_p50_ms=_pct(window, 50), window_p95_ms=_pct(window, 95),
                         settle_ms=settle)
                out["samples"].append(s)
                print(_soak_row(spec.name, s), flush=True)
                window = []
                if out["error"]:
                    break
    except (RequestTimeout, ResponseError, ServerDied, OSError, asyncio.TimeoutError) as err:
        out["error"] = f"{type(err).__name__}: {err}"
        tail = sess.client.log_tail()
        if tail:
            out["error"] += "\n    stderr: " + tail.replace("\n", "\n    stderr: ")
    finally:
        await sess.close()
    out["wall_s"] = time.perf_counter() - t_start
    return out


def _soak_row(name: str, s: dict) -> str:
    def f(v: float | None) -> str:
        return "-" if v is None else f"{v:.1f}"
    return (f"  {name:<8} edits {s['edits']:>7}  VmRSS {s['rss_mb']:8.1f} MB  VmHWM {s['hwm_mb']:8.1f} MB"
            f"  tree RSS {s['tree_rss_mb']:8.1f} MB  window p50 {f(s['window_p50_ms']):>7} ms"
            f"  p95 {f(s['window_p95_ms']):>7} ms  settle {f(s['settle_ms']):>7} ms")


# ---------------------------------------------------------------------------------------
# Reporting
# ---------------------------------------------------------------------------------------

def _pct(values: list[float], p: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    vs = sorted(values)
    k = (len(vs) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(vs) - 1)
    return vs[lo] + (vs[hi] - vs[lo]) * (k - lo)


def _fmt(v: float | None, nd: int = 1) -> str:
    return "-" if v is None else f"{v:.{nd}f}"


def summarize(runs: list[RunResult], specs: dict[str, ServerSpec], baseline: str) -> list[dict]:
    rows = []
    for name, spec in specs.items():
        mine = [r for r in runs if r.server == name]
        lat = [e.latency_ms for r in mine for e in r.edits if e.latency_ms is not None]
        missing = sum(1 for r in mine for e in r.edits if e.latency_ms is None)
        opens = [r.open_ms for r in mine if r.open_ms is not None]
        inits = [r.init_ms for r in mine if r.init_ms is not None]
        init_cpus = [r.init_cpu_ms for r in mine if r.init_cpu_ms is not None]
        bursts = [b for r in mine for b in r.bursts]
        by_kind: dict[str, list[float]] = {}
        for r in mine:
            for e in r.edits:
                if e.latency_ms is not None:
                    by_kind.setdefault(e.kind, []).append(e.latency_ms)
        rows.append({
            "server": name, "command": shlex.join(spec.argv),
            "mode": ",".join(sorted({r.mode for r in mine})) or "-",
            "runs": len(mine), "edits": len(lat), "no_diagnostics": missing,
            "init_ms": _pct(inits, 50), "init_cpu_ms": _pct(init_cpus, 50), "open_ms": _pct(opens, 50),
            "burst_p50": _pct(bursts, 50), "burst_max": max(bursts) if bursts else None, "bursts": len(bursts),
            "p50": _pct(lat, 50), "p95": _pct(lat, 95), "max": max(lat) if lat else None,
            "debounce_ms": spec.debounce_ms,
            "p50_net": None if not lat else _pct(lat, 50) - spec.debounce_ms,
            "by_kind": {k: _pct(v, 50) for k, v in by_kind.items()},
            "errors": [r.error for r in mine if r.error],
            "text_matches": all(r.text_matches is not False for r in mine),
        })
    base = next((r for r in rows if r["server"] == baseline), None)
    for r in rows:
        if base and base["p50"] and r["p50"] is not None:
            r["ratio"] = r["p50"] / base["p50"]
            r["ratio_net"] = (r["p50_net"] / base["p50_net"]) if base["p50_net"] else None
        else:
            r["ratio"] = r["ratio_net"] = None
    return rows


def print_table(title: str, rows: list[dict], baseline: str) -> None:
    print(f"\n== {title}")
    hdr = (f"{'server':<8} {'mode':<5} {'edits':>5} {'miss':>4} {'init':>7} {'init cpu':>8} {'open→diag':>9} "
           f"{'p50':>8} {'p95':>8} {'max':>8} {'burst':>8} {'burst':>8} {'debounce':>8} {'p50-deb':>8} "
           f"{'p50/' + baseline:>10} {'net/' + baseline:>10}")
    print(hdr)
    print(f"{'':<8} {'':<5} {'':>5} {'':>4} {'ms':>7} {'ms':>8} {'ms':>9} {'ms':>8} {'ms':>8} {'ms':>8} "
          f"{'p50 ms':>8} {'max ms':>8} {'ms':>8} {'ms':>8}")
    for r in rows:
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}x"
        ratio_net = "-" if r["ratio_net"] is None else f"{r['ratio_net']:.2f}x"
        print(f"{r['server']:<8} {r['mode']:<5} {r['edits']:>5} {r['no_diagnostics']:>4} {_fmt(r['init_ms']):>7} "
              f"{_fmt(r['init_cpu_ms']):>8} {_fmt(r['open_ms']):>9} {_fmt(r['p50']):>8} {_fmt(r['p95']):>8} "
              f"{_fmt(r['max']):>8} {_fmt(r['burst_p50']):>8} {_fmt(r['burst_max']):>8} "
              f"{_fmt(r['debounce_ms'], 0):>8} {_fmt(r['p50_net']):>8} {ratio:>10} {ratio_net:>10}")
    kinds = ["type", "insert-line", "delete-line", "insert-lines", "delete-lines", "syntax-error",
             "syntax-fix", "far-insert", "far-type", "far-delete"]
    print("   p50 ms by edit kind: " + "  ".join(f"{k}" for k in kinds))
    for r in rows:
        print(f"   {r['server']:<8} " + "  ".join(f"{_fmt(r['by_kind'].get(k)):>{len(k)}}" for k in kinds))
    for r in rows:
        for err in r["errors"]:
            print(f"   ! {r['server']}: {err}")
        if not r["text_matches"]:
            print(f"   ! {r['server']}: the document did not return to its original text (script bug)")


# ---------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------

def resolve_command(cmd: str) -> list[str]:
    argv = shlex.split(cmd)
    argv[0] = resolve(argv[0])
    return argv


def parse_servers(args: argparse.Namespace) -> dict[str, ServerSpec]:
    items = args.server or DEFAULT_ORDER
    inits = dict(kv.split("=", 1) for kv in (args.init_options or []))
    debs = dict(kv.split("=", 1) for kv in (args.debounce or []))
    specs: dict[str, ServerSpec] = {}
    for item in items:
        name, eq, cmd = item.partition("=")
        name = name.strip()
        default = DEFAULT_SERVERS.get(name)
        if not eq:
            if default is None:
                sys.exit(f"unknown server {name!r}: give NAME=COMMAND (known: {', '.join(DEFAULT_SERVERS)})")
            cmd = default[0]
        init = default[1] if default else None
        if name in inits:
            init = json.loads(inits[name])
        deb = float(debs[name]) if name in debs else (default[2] if default else 0.0)
        specs[name] = ServerSpec(name, resolve_command(cmd), init, deb)
    return specs


async def amain(args: argparse.Namespace) -> int:
    specs = parse_servers(args)
    tmp = Path(tempfile.mkdtemp(prefix="pallas-lsp-bench-"))
    logdir = tmp / "logs"
    logdir.mkdir()
    files: list[Path] = [Path(f).resolve() for f in (args.file or [])]
    for n in args.generate or []:
        p = tmp / f"generated_{n}_lines.py"
        p.write_text(genkernels.generate(n, seed=args.seed), encoding="utf-8")
        files.append(p)
    print("servers: " + "; ".join(f"{s.name}={shlex.join(s.argv)}" + (
        f" init={json.dumps(s.init_options)}" if s.init_options is not None else "") for s in specs.values()))
    print(f"temp dir (generated files, server stderr logs): {tmp}")
    state = code_state()
    print(describe_code_state(state))
    raw: dict[str, Any] = {"argv": sys.argv, "code": state, "servers": {k: asdict(v) for k, v in specs.items()},
                           "files": [], "runs": [], "soak": []}
    modes = ["push"] if args.push_only else [m.strip() for m in args.modes.split(",") if m.strip()]
    if any(m not in ("pull", "push") for m in modes):
        sys.exit(f"--modes: pull and/or push, got {args.modes!r}")
    compile_package()
    rc = 0
    if args.soak:
        print(f"\n== soak: {args.soak_files} generated files of {args.soak_lines} lines, {args.soak} edits "
              f"round-robin, memory every {args.sample_every} edits")
        for spec in specs.values():
            out = await soak(spec, args.soak, args.soak_files, args.soak_lines, args.sample_every,
                             args.timeout, tmp, logdir, args.soak_time_limit, not args.push_only)
            raw["soak"].append(out)
            first, last = (out["samples"][0], out["samples"][-1]) if out["samples"] else (None, None)
            if first and last:
                print(f"  {spec.name}: mode {out.get('mode')}, opened {out['files']} files in "
                      f"{out.get('open_all_s', 0):.1f} s, VmRSS {first['rss_mb']:.1f} -> {last['rss_mb']:.1f} MB "
                      f"({last['rss_mb'] - first['rss_mb']:+.1f} MB over {last['edits']} edits), "
                      f"VmHWM {last['hwm_mb']:.1f} MB, wall {out['wall_s']:.1f} s")
            if out["error"]:
                print(f"  ! {spec.name}: {out['error']}")
                rc = 1
    if not files and not args.soak:
        sys.exit("nothing to do: give --file PATH, --generate N or --soak N")
    all_runs: list[RunResult] = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        edits, info = build_script(text)
        nlines = text.count("\n")
        raw["files"].append({"path": str(path), "lines": nlines, "edits": len(edits), "script": info})
        print(f"\n-- {path} ({nlines} lines): {len(edits)} edits per run; typing in `{info['kernel']['name']}` "
              f"(line {info['kernel']['line']}), lines pasted in `{info['second_kernel']['name']}` "
              f"(line {info['second_kernel']['line']}), far edit at line {info['far_line']} "
              f"({info['far_distance']} lines from the nearest kernel)")
        if args.show_script:
            for e in edits:
                print(f"     {e.kind:<13} {e.start}-{e.end} {e.text!r}")
        runs: list[RunResult] = []
        for r in range(args.repeat):
            for mode in modes:  # both modes and every server in one run, interleaved
                for spec in specs.values():
                    res = await run_file(spec, path, r, args.timeout, logdir,
                                         Path(args.root) if args.root else None, pull=mode == "pull",
                                         bursts=args.bursts, burst_interval_s=args.burst_interval_ms / 1000,
                                         lens=args.lens)
                    runs.append(res)
                    lat = [e.latency_ms for e in res.edits if e.latency_ms is not None]
                    print(f"   run {r + 1}/{args.repeat} {spec.name:<6} {res.mode:<4} init {_fmt(res.init_ms)} ms "
                          f"(cpu {_fmt(res.init_cpu_ms)} ms), open→diag {_fmt(res.open_ms)} ms "
                          f"({res.open_diagnostics} diags), edits p50 {_fmt(_pct(lat, 50))} ms "
                          f"max {_fmt(max(lat) if lat else None)} ms, bursts {[round(b, 1) for b in res.bursts]}"
                          + (f", lens p50 {_fmt(_pct(res.lenses, 50))} ms" if res.lenses else "")
                          + (f"  ERROR {res.error.splitlines()[0]}" if res.error else ""), flush=True)
        all_runs += runs
        raw["runs"] += [asdict(r) for r in runs]
        for mode in modes:
            mine = [r for r in runs if r.client == mode]
            print_table(f"{path.name}, client advertises {mode}: {args.repeat} run(s) per server",
                        summarize(mine, specs, args.baseline), args.baseline)
    if len(files) > 1:
        for mode in modes:
            print_table(f"all {len(files)} files, client advertises {mode}",
                        summarize([r for r in all_runs if r.client == mode], specs, args.baseline), args.baseline)
    if all_runs:
        raw["summary"] = summarize(all_runs, specs, args.baseline)
        if any(r.error for r in all_runs):
            rc = 1
    if args.json:
        Path(args.json).write_text(json.dumps(raw, indent=1, default=str))
        print(f"\nraw results: {args.json}")
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return rc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", action="append", metavar="NAME[=CMD]",
                    help="a server to benchmark; repeatable. Known names without =CMD use their default "
                         f"command ({', '.join(f'{k}={v[0]}' for k, v in DEFAULT_SERVERS.items())}). "
                         "Default: all four.")
    ap.add_argument("--init-options", action="append", metavar="NAME=JSON",
                    help="initializationOptions for a server (overrides the default)")
    ap.add_argument("--debounce", action="append", metavar="NAME=MS",
                    help="the server's own publish debounce, reported separately (defaults: pylsp=500, jedi=1000)")
    ap.add_argument("--file", action="append", help="a Python file to edit; repeatable")
    ap.add_argument("--generate", action="append", type=int, metavar="N",
                    help="also benchmark a generated kernel file of N lines; repeatable")
    ap.add_argument("--seed", type=int, default=0, help="seed for --generate (default 0)")
    ap.add_argument("--repeat", type=int, default=3, help="fresh server processes per file and server (default 3)")
    ap.add_argument("--timeout", type=float, default=30.0, help="per-request timeout in seconds (default 30)")
    ap.add_argument("--root", help="workspace root (default: each file's folder)")
    ap.add_argument("--baseline", default="ours", help="server the ratios are against (default ours)")
    ap.add_argument("--json", metavar="OUT", help="write raw results as JSON")
    ap.add_argument("--push-only", action="store_true",
                    help="do not advertise pull diagnostics: every server must publish (same as --modes push)")
    ap.add_argument("--modes", default="pull,push",
                    help="client modes to run, each for every server in the same run: pull (advertise pull "
                         "diagnostics; servers that offer them are asked), push (do not advertise: every server "
                         "publishes). Default: pull,push")
    ap.add_argument("--bursts", type=int, default=3,
                    help="after the script, type this many bursts of %d characters without waiting for "
                         "diagnostics in between (default 3)" % len(BURST_TEXT))
    ap.add_argument("--burst-interval-ms", type=float, default=30.0,
                    help="time between the keystrokes of a burst (default 30 ms: fast typing)")
    ap.add_argument("--show-script", action="store_true", help="print the edit script of each file")
    ap.add_argument("--lens", action="store_true",
                    help="after each edit's diagnostics, also request the code lenses without waiting for them "
                         "(as VS Code does); their answer times are printed per run")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir (generated files, stderr logs)")
    ap.add_argument("--soak", type=int, metavar="N", help="soak mode: N edits round-robin over generated files")
    ap.add_argument("--soak-files", type=int, default=200)
    ap.add_argument("--soak-lines", type=int, default=400)
    ap.add_argument("--sample-every", type=int, default=500)
    ap.add_argument("--soak-time-limit", type=float, default=1800.0,
                    help="stop a server's soak after this many seconds (default 1800)")
    args = ap.parse_args(argv)
    if args.soak and not args.server:
        args.server = ["ours"]
    return asyncio.run(amain(args))


if __name__ == "__main__":
    sys.exit(main())
