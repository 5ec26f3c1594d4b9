"""The protocol layer in process (no client): bookkeeping that must not grow per message."""
from __future__ import annotations

from pallas_lsp.lsp.server import create_server


def test_notifications_leave_no_futures_behind() -> None:
    """pygls files a future for every notification its generator handlers run (didChange on
    each keystroke) and never removes it; the server's protocol drops them once done."""
    proto = create_server().protocol
    before = len(proto._request_futures)
    for i in range(200):
        msg = proto.structure_message({
            "jsonrpc": "2.0", "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": "file:///not/open.py", "version": i},
                       "contentChanges": [{"text": "x = 1\n"}]},
        })
        proto.handle_message(msg)
    assert len(proto._request_futures) <= before
