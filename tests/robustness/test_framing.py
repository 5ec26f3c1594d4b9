"""The bounded LSP frame reader (lsp/framing.py) on its own: any split of the stream into reads,
garbage, wrong lengths, the end of the stream, and what a dropped request's id is read from."""
import asyncio
import json

import pytest

from pallas_lsp.lsp.framing import MAX_HEADER_BYTES, FrameReader, nesting_exceeds, request_id_of


def frames_of(data: bytes, chunk: int = 1 << 20, max_frame: int = 1 << 20) -> tuple[list, int]:
    """Every frame of ``data`` read ``chunk`` bytes at a time, and the most bytes buffered."""
    pos = 0
    most = 0

    async def read() -> bytes:
        nonlocal pos
        piece = data[pos:pos + chunk]
        pos += len(piece)
        return piece

    async def run() -> list:
        nonlocal most
        reader = FrameReader(read, max_frame=max_frame)
        out = []
        while (f := await reader.next_frame()) is not None:
            most = max(most, len(reader._buf))
            out.append(f)
        return out

    return asyncio.run(run()), most


def frame(body: bytes, length: int | None = None, header: bytes = b"Content-Length") -> bytes:
    return header + b": %d\r\n\r\n" % (len(body) if length is None else length) + body


A = b'{"jsonrpc":"2.0","id":1,"method":"a"}'
B = b'{"jsonrpc":"2.0","id":2,"method":"b"}'


@pytest.mark.parametrize("chunk", [1, 2, 7, 64, 1 << 20])
def test_any_split_into_reads_gives_the_same_frames(chunk):
    data = (frame(A) + b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + frame(B)
            + frame(A, header=b"content-length"))
    frames, _ = frames_of(data, chunk)
    assert [f.body for f in frames] == [A, B, A]
    assert all(f.problem is None for f in frames)


@pytest.mark.parametrize("chunk", [1, 5, 1 << 20])
def test_a_header_inside_a_body_ends_it(chunk):
    frames, _ = frames_of(frame(A, length=500) + frame(B), chunk)
    assert [f.body for f in frames] == [A, B]
    assert "next message began" in frames[0].problem


@pytest.mark.parametrize("chunk", [1, 3, 1 << 20])
def test_a_short_length_and_garbage_lose_only_themselves(chunk):
    frames, _ = frames_of(frame(A, length=10) + b"garbage \x00\xff" + frame(B), chunk)
    assert [f.body for f in frames] == [A[:10], B]


def test_a_body_over_the_limit_is_skipped_keeping_only_its_head():
    big = b'{"jsonrpc":"2.0","id":9,"method":"x","params":"' + b"y" * 3_000_000 + b'"}'
    frames, most = frames_of(frame(big) + frame(B), chunk=65536, max_frame=1 << 20)
    assert frames[0].body is None and "larger than the limit" in frames[0].problem
    assert request_id_of(frames[0].head, frames[0].tail) == (True, 9)
    assert frames[1].body == B
    assert most < 200_000  # the reader never buffered the big body


def test_a_huge_length_followed_by_a_message():
    frames, _ = frames_of(b"Content-Length: 99999999999\r\n\r\n" + frame(B))
    assert frames[0].body is None and frames[1].body == B


def test_garbage_without_a_newline_is_skipped_in_bounded_memory():
    frames, most = frames_of(b"x" * 5_000_000 + frame(B), chunk=65536)
    assert [f.body for f in frames] == [B]
    assert most < MAX_HEADER_BYTES + 65536 + 100


def test_the_stream_ending_inside_a_message():
    frames, _ = frames_of(frame(A, length=1000))
    assert frames[0].body is None and "stream ended" in frames[0].problem
    assert request_id_of(frames[0].head) == (True, 1)
    assert frames_of(b"Content-Length: 5\r\n")[0] == []  # a header without its blank line


def test_broken_header_sections_resynchronise():
    data = (b"Content-Length: 5\r\nnot a header\r\n\r\n{}" + b"Content-Length: 30000000000000000000000\r\n\r\n"
            + frame(B))
    assert [f.body for f in frames_of(data, 1)[0]] == [B]


@pytest.mark.parametrize("head,tail,expected", [
    (b'{"jsonrpc":"2.0","id":7,"method":"m","params":[[[', b"", (True, 7)),
    (b'{"method":"m","id":"a\\"b","params":{', b"", (True, 'a"b')),
    (b'{"jsonrpc":"2.0","method":"m","params":[[[', b']]],"id":-3}', (True, -3)),
    (b'{"jsonrpc":"2.0","id":7,"result":[[[', b"", (False, None)),  # a response: never answered
    (b'{"jsonrpc":"2.0","method":"m","params":{"id":5}', b"", (False, None)),  # not the top-level id
    (b'{"jsonrpc":"2.0","method":"say \\"id\\": 4","params":[', b"", (False, None)),
])
def test_request_id_of_an_unreadable_body(head, tail, expected):
    assert request_id_of(head, tail) == expected


def test_nesting_is_measured_without_recursion():
    deep: list = []
    for _ in range(200_000):
        deep = [deep]
    assert nesting_exceeds(deep, 100)
    assert not nesting_exceeds(json.loads(json.dumps({"a": [{"b": [1, 2, {"c": None}]}]})), 5)
    assert nesting_exceeds({"a": [{"b": [1, 2, {"c": []}]}]}, 5)
    assert not nesting_exceeds("text", 1)
