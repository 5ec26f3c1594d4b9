from lsprotocol import types as lsp

from pallas_lsp.lsp.documents import Document
from pallas_lsp.lsp.positions import from_units, to_units
from pallas_lsp.lsp.settings import Settings, parse_settings

LINE = "a = 'é😀'; b"


def test_units_round_trip_in_all_encodings():
    col_b = LINE.index("b")
    assert to_units(LINE, col_b, "utf-32") == col_b
    assert to_units(LINE, col_b, "utf-16") == col_b + 1
    assert to_units(LINE, col_b, "utf-8") == len(LINE[:col_b].encode())
    for enc in ("utf-8", "utf-16", "utf-32"):
        for col in range(len(LINE) + 1):
            assert from_units(LINE, to_units(LINE, col, enc), enc) == col
    # Inside a surrogate pair / multi-byte sequence: the character's start.
    emoji = LINE.index("😀")
    assert from_units(LINE, to_units(LINE, emoji, "utf-16") + 1, "utf-16") == emoji
    assert from_units(LINE, 10_000, "utf-8") == len(LINE)


def test_incremental_changes_and_line_breaks():
    d = Document("file:///x.py", "a\r\nbé\rc\nd", 1)
    assert [d.line(i) for i in range(d.line_count)] == ["a", "bé", "c", "d"]
    d.apply_change(lsp.Range(lsp.Position(1, 1), lsp.Position(2, 0)), "X", "utf-16")
    assert d.text == "a\r\nbXc\nd"
    # Out-of-range and reversed ranges clamp instead of corrupting.
    d.apply_change(lsp.Range(lsp.Position(9, 9), lsp.Position(9, 9)), "!", "utf-8")
    assert d.text.endswith("d!")
    d.apply_change(lsp.Range(lsp.Position(0, 1), lsp.Position(0, 0)), "", "utf-8")
    assert d.text.startswith("\r\nbX")  # a reversed range is read as the span between its ends
    d.apply_change(None, "new", "utf-8")
    assert d.text == "new"


def test_form_feed_is_not_a_line_break():
    d = Document("file:///x.py", "a\x0cb\nc", 1)
    assert d.line_count == 2


def test_settings_parsing():
    s, problems = parse_settings({"select": "PAL001", "debounceMs": 5, "codeLens": {"enable": False},
                                  "codeAction": {"fixes": {"enable": False}}, "logLevel": "loud", "wat": 1})
    assert s.select == ("PAL001",) and s.debounce_ms == 5 and not s.code_lens and not s.fix_actions
    assert s.log_level == "info"
    assert any("logLevel" in p for p in problems) and any("wat" in p for p in problems)
    s2, problems = parse_settings({"pallasLsp": {"ignore": [1]}})
    assert s2 == Settings() and problems
    assert parse_settings("nope")[0] == Settings()


def test_line_starts_kept_across_changes_equal_a_fresh_scan() -> None:
    """A change re-scans only the edited lines; random edits with every LSP line break (and
    ``\\r\\n`` split or joined at the edges) give the starts of a fresh scan."""
    import random

    from lsprotocol import types as lsp

    rng = random.Random(11)
    pieces = ["\n", "\r", "\r\n", "a", "bc", "\n\n", "x\ry", "é😀", ""]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        doc = Document("file:///t.py", text, 1)
        doc.starts  # noqa: B018 - known before the change, so the change patches them
        for _ in range(3):
            line = rng.randrange(doc.line_count)
            end_line = rng.randrange(line, doc.line_count)
            rng_ = lsp.Range(lsp.Position(line, rng.randint(0, 4)), lsp.Position(end_line, rng.randint(0, 4)))
            doc.apply_change(rng_, "".join(rng.choice(pieces) for _ in range(rng.randint(0, 3))), "utf-16")
            assert doc.starts == Document("file:///t.py", doc.text, 1).starts
