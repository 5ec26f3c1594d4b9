"""Protocol abuse: each gets a correct error or a graceful answer, and the process stays up."""
import json
import subprocess
import time

import pytest

from tests.conftest import CORPUS
from tests.robustness.rawclient import RawClient

BASIC = (CORPUS / "get_global_interpret_true_basic.py").read_text()


@pytest.fixture()
def c():
    client = RawClient()
    client.initialize(pull=True)
    yield client
    assert client.alive()
    assert client.close() == 0


def test_malformed_json_rpc_and_unknown_methods(c):
    c.raw(b"Content-Length: 9\r\n\r\n{not json")
    c.raw(b"Content-Length: 2\r\n\r\n[]")
    c.send({"jsonrpc": "2.0", "id": 99, "params": {}})  # no method
    res = c.request("nonexistent/method", {})
    assert res["error"]["code"] == -32601
    c.notify("$/nonexistentNotification", {})
    c.notify("textDocument/didOpen", {"textDocument": {"uri": 5}})  # wrong types
    res = c.request("textDocument/hover", {"textDocument": {}, "position": "nowhere"})
    assert res["error"]["code"] == -32602
    uri = "file:///tmp/after_garbage.py"
    c.open(uri, BASIC)
    assert len(c.diagnostics(uri)) == 1  # still serving


def test_unopened_closed_and_out_of_range(c):
    uri = "file:///tmp/abuse.py"
    assert c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})[
        "result"] is None
    assert c.diagnostics(uri) == []
    c.open(uri, BASIC)
    assert len(c.diagnostics(uri)) == 1
    for pos in ({"line": 10_000, "character": 3}, {"line": 3, "character": 10_000}, {"line": 0, "character": 0}):
        res = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": pos})
        assert "error" not in res
    res = c.request("textDocument/codeAction", {"textDocument": {"uri": uri},
                                                "range": {"start": {"line": 500, "character": 0},
                                                          "end": {"line": 0, "character": 99}},
                                                "context": {"diagnostics": []}})
    assert "error" not in res
    c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert c.diagnostics(uri) == []
    c.change(uri, 5, [{"text": "x = 1"}])  # a change for a closed document: ignored
    assert c.diagnostics(uri) == []


def test_versions_backwards_and_stale_ranges(c):
    uri = "file:///tmp/stale.py"
    c.open(uri, BASIC, version=10)
    c.change(uri, 3, [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                       "text": "# older version\n"}])
    assert [d["range"]["start"]["line"] for d in c.diagnostics(uri)] == [9]
    # A range past the end and a reversed range: applied clamped, never a crash.
    c.change(uri, 11, [{"range": {"start": {"line": 999, "character": 5}, "end": {"line": 1999, "character": 0}},
                        "text": "\n# tail\n"},
                       {"range": {"start": {"line": 2, "character": 5}, "end": {"line": 1, "character": 0}},
                        "text": ""}])
    c.diagnostics(uri)


def test_huge_file_and_many_documents(c):
    big = BASIC + ("x = 1  # padding padding padding padding padding padding padding padding\n" * 700_000)
    assert len(big) > 50_000_000
    t = time.monotonic()
    c.open("file:///tmp/huge.py", big)
    diags = c.diagnostics("file:///tmp/huge.py", timeout=120)
    assert [d["code"] for d in diags] == ["PAL903"]  # not analysed, said so
    for i in range(1000):
        c.open(f"file:///tmp/many_{i}.py", BASIC)
    assert len(c.diagnostics("file:///tmp/many_999.py")) == 1
    assert c.request("textDocument/hover", {"textDocument": {"uri": "file:///tmp/many_0.py"},
                                            "position": {"line": 8, "character": 12}})["result"]
    rss_kb = int(next(row for row in open(f"/proc/{c.proc.pid}/status") if row.startswith("VmRSS")).split()[1])
    assert rss_kb < 2_000_000, rss_kb  # bounded: well under 2 GB with a 50 MB buffer and 1,000 documents
    assert time.monotonic() - t < 120


def test_cancellation_of_in_flight_requests(c):
    uri = "file:///tmp/cancel.py"
    c.open(uri, BASIC)
    ids = [c.request_async("textDocument/diagnostic", {"textDocument": {"uri": uri}}) for _ in range(5)]
    for rid in ids:
        c.notify("$/cancelRequest", {"id": rid})
    for rid in ids:
        res = c.wait(rid)
        assert "result" in res or res["error"]["code"] in (-32800, -32603)
    assert len(c.diagnostics(uri)) == 1


def test_shutdown_mid_analysis():
    client = RawClient()
    client.initialize(pull=True)
    for i in range(200):
        client.open(f"file:///tmp/busy_{i}.py", BASIC * 20)
    client.request_async("textDocument/diagnostic", {"textDocument": {"uri": "file:///tmp/busy_199.py"}})
    res = client.request("shutdown", None)
    assert res.get("result") is None and "error" not in res
    client.notify("exit", None)
    assert client.proc.wait(timeout=30) == 0


# --- framing: bounded reads, resynchronising after a wrong Content-Length ---------------------
HOVER = {"textDocument": {"uri": "file:///tmp/nowhere.py"}, "position": {"line": 0, "character": 0}}
GiB = 1024 ** 3


def frame(msg: dict, length: int | None = None) -> bytes:
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


def hover_request(rid: int) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "method": "textDocument/hover", "params": HOVER}


@pytest.fixture()
def bounded():
    """A server under a 3 GiB address-space limit: memory blown by hostile input fails the
    test instead of the machine."""
    client = RawClient(memory_limit=3 * GiB)
    client.initialize(pull=True)
    yield client
    assert client.alive(), "".join(client.stderr_lines[-20:])
    assert client.close() == 0


def test_huge_content_length_is_skipped_and_the_next_request_answered(bounded):
    bounded.raw(b"Content-Length: 99999999999\r\n\r\n")
    res = bounded.request("textDocument/hover", HOVER, timeout=20)
    assert res.get("result") is None and "error" not in res
    bounded.open("file:///tmp/after_huge.py", BASIC)
    assert len(bounded.diagnostics("file:///tmp/after_huge.py")) == 1


def test_message_over_the_frame_limit_gets_an_error_and_memory_stays_bounded(bounded):
    pad = "x" * (70 * 1024 * 1024)  # over the 64 MiB limit
    body = json.dumps({"jsonrpc": "2.0", "id": 77, "method": "textDocument/hover", "params": {"pad": pad}}).encode()
    bounded.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    res = bounded.wait(77, timeout=60)
    assert res["error"]["code"] == -32600 and "larger than the limit" in res["error"]["message"], res
    rss_kb = int(next(row for row in open(f"/proc/{bounded.proc.pid}/status") if row.startswith("VmHWM")).split()[1])
    assert rss_kb < 400_000, rss_kb  # skipped as it arrived, never held whole
    assert "error" not in bounded.request("textDocument/hover", HOVER)


def test_over_long_content_length_resynchronises_on_the_next_header(bounded):
    # The first message claims 500 bytes but has ~150: the next header starts inside its
    # claimed body. pygls waited for the missing bytes (swallowing what followed) for good.
    bounded.raw(frame(hover_request(50), length=500))
    res = bounded.request("textDocument/hover", HOVER, timeout=20)
    assert "error" not in res
    assert "error" not in bounded.wait(50, timeout=5)  # the short one was whole: served as well
    for _ in range(3):
        bounded.raw(frame(hover_request(bounded.next_id + 100), length=10_000))
    assert "error" not in bounded.request("textDocument/hover", HOVER, timeout=20)


def test_short_content_length_and_garbage_lose_only_themselves(bounded):
    bounded.raw(frame(hover_request(60), length=10))  # cut: the rest of the body is garbage
    bounded.raw(b"\x00\xff not a header, no newline at the end")
    bounded.raw(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n")  # a header of its own: fine
    answers = [bounded.request("textDocument/hover", HOVER, timeout=20) for _ in range(3)]
    assert all("error" not in a for a in answers)
    bounded.raw(b"Content-Length: 12\r\nnot a header line\r\n\r\n{}")  # a broken header section
    assert "error" not in bounded.request("textDocument/hover", HOVER, timeout=20)


def nested(depth: int, open_: str, close: str) -> str:
    return open_ * depth + close * depth


@pytest.mark.parametrize("shape", [("[", "]"), ('{"a":', "}")])
@pytest.mark.parametrize("depth", [150, 5_000, 100_000])
def test_deeply_nested_request_is_answered_with_an_error(bounded, depth, shape):
    open_, close = shape
    if close == "}":
        inner = open_ * depth + "1" + close * depth
    else:
        inner = nested(depth, open_, close)
    for rid, body in ((901, '{"jsonrpc": "2.0", "id": 901, "method": "textDocument/hover", "params": %s}' % inner),
                      (902, '{"jsonrpc": "2.0", "method": "textDocument/hover", "params": %s, "id": 902}' % inner)):
        data = body.encode()
        bounded.raw(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        res = bounded.wait(rid, timeout=20)
        assert res["error"]["code"] == -32600 and "deeper" in res["error"]["message"], res
    bounded.raw(frame({"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration",
                       "params": {"settings": json.loads(nested(300, "[", "]"))}}))  # a notification: dropped
    assert "error" not in bounded.request("textDocument/hover", HOVER)


# --- lifecycle ---------------------------------------------------------------------------------
def test_requests_before_initialize_are_refused_and_notifications_dropped():
    client = RawClient()
    try:
        res = client.request("textDocument/hover", HOVER, timeout=20)
        assert res["error"]["code"] == -32002, res
        res = client.request("shutdown", None, timeout=20)
        assert res["error"]["code"] == -32002, res
        client.open("file:///tmp/too_early.py", BASIC)  # dropped: the server was not initialized
        client.initialize(pull=True)
        assert client.diagnostics("file:///tmp/too_early.py") == []
        client.open("file:///tmp/in_time.py", BASIC)
        assert len(client.diagnostics("file:///tmp/in_time.py")) == 1
    finally:
        assert client.close() == 0


def test_second_initialize_is_an_invalid_request(c):
    res = c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    assert res["error"]["code"] == -32600, res
    assert "error" not in c.request("textDocument/hover", HOVER)


def test_requests_after_shutdown_are_invalid_and_exit_is_0():
    client = RawClient()
    client.initialize(pull=True)
    assert "error" not in client.request("shutdown", None)
    for method, params in (("textDocument/hover", HOVER), ("shutdown", None), ("initialize", {"capabilities": {}})):
        res = client.request(method, params, timeout=20)
        assert res["error"]["code"] == -32600, (method, res)
    client.notify("exit", None)
    assert client.proc.wait(timeout=30) == 0


def test_exit_without_shutdown_exits_1():
    client = RawClient()
    client.initialize(pull=True)
    client.notify("exit", None)
    assert client.proc.wait(timeout=30) == 1


# --- tcp ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("address", ["0.0.0.0:0", "[::]:0", "192.0.2.1:0", "example.com:0"])
def test_tcp_refuses_a_non_loopback_address(address):
    from tests.robustness.rawclient import SERVER

    proc = subprocess.run(SERVER + ["--tcp", address], capture_output=True, text=True, timeout=30,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and "loopback" in proc.stderr, proc.stderr[-2000:]


def test_tcp_listens_on_loopback_and_keeps_serving_after_a_client_leaves():
    from tests.robustness.rawclient import TcpClient

    server = TcpClient()
    try:
        assert server.host == "127.0.0.1"
        uri = "file:///tmp/tcp.py"
        for session in range(3):
            server.connect()
            server.initialize(pull=True)  # each client is a new session: initialize is accepted
            assert server.diagnostics(uri) == []  # the last client's documents left with it
            server.open(uri, BASIC)
            assert len(server.diagnostics(uri)) == 1
            if session == 1:  # a client that says goodbye properly ends only its session
                assert "error" not in server.request("shutdown", None)
                server.notify("exit", None)
                server.wait_stderr(r"sent exit \(code 0\)")
            else:
                server.disconnect()  # and one that just goes away
            server.wait_stderr(r"waiting for the next client")
            assert server.alive()
            server.stderr_lines.clear()
    finally:
        server.close()


def test_tcp_turns_away_a_second_client_while_one_is_connected():
    import socket as socket_

    from tests.robustness.rawclient import TcpClient

    server = TcpClient()
    try:
        server.connect()
        server.initialize(pull=True)
        intruder = socket_.create_connection((server.host, server.port), timeout=10)
        assert intruder.recv(1) == b""  # closed on it
        intruder.close()
        assert "error" not in server.request("textDocument/hover", HOVER)
    finally:
        server.close()


def test_exit_is_a_clean_exit_whatever_the_analysis_threads_are_doing():
    # The analysis threads are daemons; at exit, interpreter finalization stopped one inside
    # native code now and then: "terminate called without an active exception", status -6
    # (about one exit in three of this sequence).
    codes = []
    for _ in range(8):
        client = RawClient()
        client.initialize(pull=True)
        assert "error" not in client.request("shutdown", None)
        for method, params in (("textDocument/hover", HOVER), ("shutdown", None)):
            client.request(method, params, timeout=20)
        client.notify("exit", None)
        codes.append(client.proc.wait(timeout=30))
    assert codes == [0] * len(codes), codes
