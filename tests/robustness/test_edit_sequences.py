"""Property: whatever sequence of edits a client sends — half-typed code, unterminated strings
and brackets, tabs, CRLF, BOM, NUL, astral characters, very long lines — the real server stays
up, answers every request, and its diagnostics equal a fresh analysis of the same text."""
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pallas_lsp.rules import analyse
from tests.conftest import CORPUS
from tests.robustness.rawclient import RawClient

BREAK = re.compile(r"\r\n|\r|\n")
SEEDS = [CORPUS / n for n in ("get_global_interpret_true_basic.py", "inline_mgpu_gpu_interpret_params.py",
                              "dynamic_grid_jit_arg_gpu_params.py", "get_global_helper_one_level.py")]
PIECES = ["(", ")", "[", "]", "{", "}", '"""', "'''", '"', "'", "\\", "\t", "\r\n", "\r", "\n", "\n    ",
          "\ufeff", "\x00", "😀", "é", "𝔘", "x" * 3000, "#", "def f(", "class C:", "pass", "@pl.when(i == 0)",
          "pl.get_global(plgpu.SemaphoreType.REGULAR)", "interpret=True", "interpret=False, ", "lambda: ",
          "plgpu.InterpretGPUParams()", "jnp.int32(", "  ", "if False:\n    ", "import functools\n"]


def lines_of(text):
    starts = [0] + [m.end() for m in BREAK.finditer(text)]
    return starts


def utf16_len(s):
    return len(s.encode("utf-16-le")) // 2


def line_text(text, starts, i):
    end = starts[i + 1] if i + 1 < len(starts) else len(text)
    return text[starts[i]:end].rstrip("\r\n")


def position(text, offset):
    starts = lines_of(text)
    line = max(i for i, s in enumerate(starts) if s <= offset)
    return {"line": line, "character": utf16_len(text[starts[line]:offset])}


def expected(text):
    """A fresh, non-incremental analysis: a path never seen before (no parse or split of it kept)."""
    COUNTER["fresh"] = COUNTER.get("fresh", 0) + 1
    starts = lines_of(text)
    out = []
    for f in analyse(text, f"/tmp/fresh_{COUNTER['fresh']}.py").findings:
        lt = line_text(text, starts, f.span.line - 1) if f.span.line - 1 < len(starts) else ""
        out.append((f.code, f.span.line - 1, utf16_len(lt[:f.span.col])))
    return sorted(out)


def _boundary(text, i):
    return i - 1 if 0 < i < len(text) and text[i - 1] == "\r" and text[i] == "\n" else i


@st.composite
def edit_script(draw):
    text = draw(st.sampled_from(SEEDS)).read_text()
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    start_text = text
    edits = []
    for _ in range(draw(st.integers(1, 8))):
        # Offsets on code-point boundaries, never inside a \r\n (neither is an LSP position).
        a = _boundary(text, draw(st.integers(0, len(text))))
        b = _boundary(text, draw(st.integers(a, min(len(text), a + draw(st.integers(0, 80))))))
        new = "".join(draw(st.lists(st.sampled_from(PIECES), max_size=4)))
        edits.append((a, b, new))
        text = text[:a] + new + text[b:]
    return start_text, edits


@pytest.fixture(scope="module")
def server():
    c = RawClient()
    c.initialize(pull=True, encoding="utf-16")
    yield c
    print(f"\nedit sequences: {COUNTER['docs']} documents, {COUNTER['edits']} edits")
    assert c.close() == 0


COUNTER = {"edits": 0, "docs": 0}


@pytest.mark.slow  # 400 random edit scripts through a real server (~13 s)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(script=edit_script())
def test_random_edit_sequences(server, script):
    COUNTER["docs"] += 1
    uri = f"file:///tmp/prop_{COUNTER['docs']}.py"
    text, edits = script
    server.open(uri, text)
    version = 1
    for a, b, new in edits:
        start, end = position(text, a), position(text, b)
        version += 1
        server.change(uri, version, [{"range": {"start": start, "end": end}, "text": new}])
        text = text[:a] + new + text[b:]
        COUNTER["edits"] += 1
        got = server.diagnostics(uri)
        assert server.alive()
        mine = sorted((d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"])
                      for d in got if not (d.get("data") or {}).get("carried"))
        assert mine == expected(text), repr(text[-300:])
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
