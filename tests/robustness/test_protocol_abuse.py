"""Protocol abuse: each gets a correct error or a graceful answer, and the process stays up."""
import json
import os
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
    rss_kb = int(next(l for l in open(f"/proc/{c.proc.pid}/status") if l.startswith("VmRSS")).split()[1])
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
    rid = client.request_async("textDocument/diagnostic", {"textDocument": {"uri": "file:///tmp/busy_199.py"}})
    res = client.request("shutdown", None)
    assert res.get("result") is None and "error" not in res
    client.notify("exit", None)
    assert client.proc.wait(timeout=30) == 0
