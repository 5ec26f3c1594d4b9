"""Splitting the client's byte stream into LSP messages, with bounds.

A message is ``Content-Length: N\\r\\n`` (other header lines allowed), a blank line, and N
bytes of JSON. pygls's reader trusts N and needs each header at the start of a line, so a
huge N exhausted memory, and one wrong N lost every later message (the next header, glued
to the end of a body, was never found again). This reader:

* never holds more than :data:`MAX_FRAME_BYTES` of one body: a longer one is skipped as it
  arrives (kept: its first :data:`HEAD_BYTES`, to answer a request with an error);
* finds a header anywhere, so garbage before it is skipped and the stream resynchronises;
* ends a body early where a header starts inside it. JSON cannot hold a raw line break
  inside a string, so ``Content-Length: 12`` followed by a raw ``\\r\\n`` is never part of a
  valid body: the body's claimed length was wrong and the next message starts there.

Pure bytes and asyncio: it knows nothing of JSON-RPC beyond reading a request's id.
"""
from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

log = logging.getLogger("pallas_lsp")

MAX_FRAME_BYTES = 64 * 1024 * 1024  # one message; a document this large is far over maxFileBytes anyway
MAX_HEADER_BYTES = 8 * 1024  # one header section
HEAD_BYTES = 4096  # kept of a dropped body, to find its request id
READ_BYTES = 1024 * 1024  # one read from the transport

# Case-sensitive, as clients write it (a case-insensitive search is 30x slower over a large
# body); the header section itself is also searched case-insensitively.
_HEADER = re.compile(rb"Content-Length[ \t]*:[ \t]*(\d{1,20})[ \t]*\r?\n")
_HEADER_ANY_CASE = re.compile(_HEADER.pattern, re.IGNORECASE)
_HEADER_SLACK = 64  # longer than any match of _HEADER: what may straddle two reads
_OTHER_HEADER = re.compile(rb"[A-Za-z0-9-]{1,64}[ \t]*:[^\r\n]{0,1024}\r?\n")
_OTHER_HEADERS = re.compile(rb"(?:[A-Za-z0-9-]{1,64}[ \t]*:[^\r\n]{0,1024}\r?\n)*")
_ID_VALUE = rb'(-?\d{1,20}|"(?:[^"\\]|\\.){0,256}")'
# A top-level "id" before any nested value, or as the last member.
_ID_AT_START = re.compile(rb'\A\s*\{[^\[\]{}"]*(?:"(?:[^"\\]|\\.){0,256}"[^\[\]{}"]*)*?"id"\s*:\s*' + _ID_VALUE)
_ID_AT_END = re.compile(rb'[,{]\s*"id"\s*:\s*' + _ID_VALUE + rb"\s*\}\s*\Z")
_METHOD_AT_START = re.compile(rb'\A\s*\{[^\[\]{}"]*(?:"(?:[^"\\]|\\.){0,256}"[^\[\]{}"]*)*?"method"\s*:')


@dataclass
class Frame:
    """One message as framed: its body, or why there is none."""

    body: bytes | None  # None when dropped (too large, or the stream ended inside it)
    length: int  # what its Content-Length said
    head: bytes = b""  # the body's first bytes, even when dropped
    tail: bytes = b""  # its last bytes, when dropped after its end arrived
    problem: str | None = None  # why the frame is not what its header said


class FrameReader:
    """Reads frames from ``read()``, an awaitable that returns the next bytes (b"" at the end)."""

    def __init__(self, read: Callable[[], Awaitable[bytes]], max_frame: int = MAX_FRAME_BYTES) -> None:
        self._read = read
        self.max_frame = max_frame
        self._buf = bytearray()
        self._eof = False

    async def _fill(self) -> bool:
        if self._eof:
            return False
        chunk = await self._read()
        if not chunk:
            self._eof = True
            return False
        self._buf += chunk
        return True

    async def next_frame(self) -> Frame | None:
        """The next frame; None once the stream has ended."""
        length = await self._header()
        if length is None:
            return None
        return await self._body(length)

    # --- header -------------------------------------------------------------------------------
    async def _header(self) -> int | None:
        skipped = 0
        while True:
            m = _HEADER_ANY_CASE.search(self._buf)
            if m is None:
                if len(self._buf) > MAX_HEADER_BYTES:  # garbage: keep only what may begin a header
                    drop = len(self._buf) - _HEADER_SLACK
                    skipped += drop
                    del self._buf[:drop]
                if not await self._fill():
                    skipped += len(self._buf)
                    self._buf.clear()
                    _log_skipped(skipped, "at the end of the stream")
                    return None
                continue
            end = self._end_of_headers(m.end())
            if end is None:  # the section is not complete yet
                if len(self._buf) - m.start() > MAX_HEADER_BYTES or not await self._fill():
                    skipped += m.end()  # never completes: not a header after all
                    del self._buf[:m.end()]
                continue
            if end < 0:  # a line that is no header follows: resynchronise after this match
                skipped += m.end()
                del self._buf[:m.end()]
                continue
            length = int(m.group(1))  # before the buffer changes under the match
            if not _OTHER_HEADERS.fullmatch(self._buf, 0, m.start()):
                skipped += m.start()  # what came before was no header section
            del self._buf[:end]
            _log_skipped(skipped, "before a message header")
            return length

    def _end_of_headers(self, pos: int) -> int | None:
        """Where the body starts (after the blank line), None if more bytes are needed, -1 if
        a line that is not a header comes first."""
        while True:
            nl = self._buf.find(b"\n", pos, pos + 1100)
            if nl < 0:
                return None if len(self._buf) - pos < 1100 else -1
            line = self._buf[pos:nl + 1]
            if line in (b"\r\n", b"\n"):
                return nl + 1
            if not _OTHER_HEADER.fullmatch(line):
                return -1
            pos = nl + 1

    # --- body ---------------------------------------------------------------------------------
    async def _body(self, length: int) -> Frame:
        keep = length <= self.max_frame
        body = bytearray()  # the whole body when kept, else its first HEAD_BYTES
        tail = b""
        received = 0
        while received < length:
            if not self._buf and not await self._fill():
                problem = f"the stream ended {received} bytes into a {length}-byte message"
                return Frame(None, length, bytes(body[:HEAD_BYTES]), b"", problem)  # no real end
            need = length - received
            region = min(need, len(self._buf))
            m = _HEADER.search(self._buf, 0, min(len(self._buf), region + _HEADER_SLACK))
            if m is not None and m.start() < region:
                # A header inside the body: the length was wrong. What came before is the body.
                piece = self._buf[:m.start()]
                del self._buf[:m.start()]
                received += len(piece)
                tail = _take(body, piece, keep, tail)
                problem = (f"a message said it had {length} bytes, but the next message began after "
                           f"{received}")
                return Frame(bytes(body) if keep else None, length, bytes(body[:HEAD_BYTES]), tail, problem)
            consume = region
            if region < need:  # more to come: hold back what may be the start of a header
                consume = max(0, region - _HEADER_SLACK)
                if consume == 0:
                    if not await self._fill():
                        consume = region  # the stream ended: what is there is all of it
                    else:
                        continue
            piece = self._buf[:consume]
            del self._buf[:consume]
            received += consume
            tail = _take(body, piece, keep, tail)
        if keep:
            return Frame(bytes(body), length, bytes(body[:HEAD_BYTES]))
        problem = f"a message of {length} bytes is larger than the limit of {self.max_frame} bytes"
        return Frame(None, length, bytes(body), tail, problem)


def _take(body: bytearray, piece: bytes | bytearray, keep: bool, tail: bytes) -> bytes:
    if keep:
        body += piece
        return b""
    if len(body) < HEAD_BYTES:
        body += piece[:HEAD_BYTES - len(body)]
    return (tail + bytes(piece[-512:]))[-512:]


def _log_skipped(n: int, where: str) -> None:
    if n:
        log.warning("skipped %d bytes that were not an LSP message, %s", n, where)


def request_id_of(head: bytes, tail: bytes = b"") -> tuple[bool, Any]:
    """(True, id) when the start of an unreadable body (or its end, ``tail``, when that
    arrived) shows it is a request and names its id; (False, None) otherwise: a response or a
    notification gets no answer."""
    if not _METHOD_AT_START.search(head) and b'"method"' not in tail:
        return False, None
    m = _ID_AT_START.search(head) or (_ID_AT_END.search(tail) if tail else None)
    if m is None:
        return False, None
    try:
        value = json.loads(m.group(1))
    except ValueError:
        return False, None
    return True, value


def nesting_exceeds(value: Any, limit: int) -> bool:
    """Whether a parsed JSON value nests deeper than ``limit`` (the top level counts 1).
    Iterative: the check itself must not recurse."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(v, (dict, list)):
            children = v.values() if isinstance(v, dict) else v
            stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False
