"""Re-splitting only the edited region gives exactly what a full split gives."""
import random

from pallas_lsp.analysis import blocks
from tests.conftest import CORPUS

PIECES = ["(", ")", '"""', "'", "\n", "\r\n", "def f(x):\n    return x\n", "class C:\n    a = 1\n", "  ", "#",
          "x = [\n", "]\n", "@dec\n", "else:\n", "\\\n", "😀"]


def test_incremental_equals_full_after_random_edits():
    rng = random.Random(1234)
    seeds = [p.read_text() for p in sorted(CORPUS.glob("*.py"))]
    checked = 0
    memo = blocks.SplitMemo()
    for n in range(300):
        text = rng.choice(seeds) * rng.randint(1, 3)
        key = f"doc{n % 7}"
        blocks.split_blocks(text, key, memo)
        for _ in range(rng.randint(1, 6)):
            a = rng.randint(0, len(text))
            b = min(len(text), a + rng.randint(0, 40))
            text = text[:a] + rng.choice(PIECES) + text[b:]
            inc = blocks.split_blocks(text, key, memo)
            full = blocks.split_blocks(text)
            assert [(x.start_line, x.end_line, x.kind, x.owner, x.text, x.broken) for x in inc] == \
                   [(x.start_line, x.end_line, x.kind, x.owner, x.text, x.broken) for x in full]
            checked += 1
    assert checked > 500


LINES = ["\n", "    x = 1\n", "def g():\n", "    return 2\n", "class K(Base):\n", "    def m(self):\n",
         "        pass\n", "@pl.when(True)\n", "else:\n", "# note\n", "if x:\n", '    """doc\n', '"""\n',
         "call(\n", ")\n", "    @staticmethod\n"]


def test_statements_kept_across_line_edits_equal_a_full_split():
    """Whole-line edits (typing a line, pasting lines, deleting them) in class-heavy programs:
    the statements before and after the edit are reused, and the result equals a full split."""
    rng = random.Random(99)
    seeds = [p.read_text() for p in sorted(CORPUS.glob("*.py"))]
    seeds += [_as_class(t) for t in seeds]
    resplit = inside = 0
    real, real_inside = blocks._resplit, blocks._resplit_members

    def counting(*a, **k):
        nonlocal resplit
        got = real(*a, **k)
        resplit += got is not None
        return got

    def counting_inside(*a, **k):
        nonlocal inside
        got = real_inside(*a, **k)
        inside += got is not None
        return got

    blocks._resplit, blocks._resplit_members = counting, counting_inside
    memo = blocks.SplitMemo()
    try:
        for n in range(200):
            text = "\n".join(rng.sample(seeds, 3))
            key = f"lines{n % 5}"
            blocks.split_blocks(text, key, memo)
            for _ in range(rng.randint(3, 12)):
                lines = text.splitlines(keepends=True)
                i = rng.randrange(len(lines) + 1)
                op = rng.randrange(3)
                if op == 0:
                    lines[i:i] = rng.sample(LINES, rng.randint(1, 3))
                elif op == 1 and i < len(lines):
                    del lines[i:i + rng.randint(1, 4)]
                elif i < len(lines):
                    pos = rng.randint(0, len(lines[i]))
                    lines[i] = lines[i][:pos] + rng.choice(["x", " ", ":", "(", "\t"]) + lines[i][pos:]
                text = "".join(lines)
                inc = blocks.split_blocks(text, key, memo)
                full = blocks.split_blocks(text)
                assert [(x.start_line, x.end_line, x.kind, x.owner, x.text, x.broken) for x in inc] == \
                       [(x.start_line, x.end_line, x.kind, x.owner, x.text, x.broken) for x in full]
    finally:
        blocks._resplit, blocks._resplit_members = real, real_inside
    assert resplit > 300  # the incremental path was taken, not only the full split
    assert inside > 100  # and edits inside a class kept its other members


def _as_class(text: str) -> str:
    body = "".join("    " + line if line.strip() else line for line in text.splitlines(keepends=True))
    return "class Test(Base):\n" + body


def test_an_unclosed_bracket_and_its_fix_keep_the_statements_after_the_recovery():
    """Typing ``bad = (1.0 +`` in a kernel breaks the text up to the next top-level ``def``,
    where the scanner recovers; the statements after it are the old ones (moved, not split
    again), both when the bracket is opened and when it is closed, and the result equals a
    full split each time."""
    unit = "def kernel_{i}(x_ref, o_ref):\n    y = x_ref[...]\n    o_ref[...] = y * 2.0\n\n\n"
    text = "import jax\n\n\n" + "".join(unit.format(i=i) for i in range(40))
    key = "unclosed-bracket-doc"
    memo = blocks.SplitMemo()
    blocks.split_blocks(text, key, memo)
    lines = text.splitlines(keepends=True)
    at = 3 + 5 * 10 + 1  # inside kernel_10
    versions = [lines[:at] + ["    bad = (1.0 +\n"] + lines[at:], lines[:at] + ["    bad = (1.0 + 2.0)\n"] + lines[at:]]
    before = memo.splits[key]
    for version in versions:
        new = "".join(version)
        inc = blocks.split_blocks(new, key, memo)
        full = blocks.split_blocks(new)
        assert [(b.start_line, b.end_line, b.text, b.broken) for b in inc] == \
               [(b.start_line, b.end_line, b.text, b.broken) for b in full]
        after = memo.splits[key]
        # The last 20 kernels' blocks are the previous split's, moved by the inserted line.
        assert all(a is b or (a.text is b.text) for a, b in zip(after.statements[-20][:1], before.statements[-20][:1]))
        before = after


def test_a_split_remembered_in_one_memo_is_not_seen_through_another():
    """Two owners (two engines) each keep their own documents' splits: the same key in another
    memo starts from nothing, and a split with no memo keeps nothing."""
    text = "import jax\n\n\ndef f(x):\n    return x\n"
    mine, theirs = blocks.SplitMemo(), blocks.SplitMemo()
    blocks.split_blocks(text, "doc.py", mine)
    assert "doc.py" in mine.splits and "doc.py" in mine.lines
    assert theirs.splits == {} and theirs.lines == {}
    edited = text.replace("return x", "return x + 1")
    real = blocks._resplit
    resplits = []
    blocks._resplit = lambda *a, **k: resplits.append(a[-1]) or real(*a, **k)
    try:
        blocks.split_blocks(edited, "doc.py", theirs)
        assert resplits == []  # (theirs has never seen doc.py: a full split)
        blocks.split_blocks(edited, "doc.py", mine)
        assert resplits == [mine]
    finally:
        blocks._resplit = real
    assert theirs.splits["doc.py"].text == mine.splits["doc.py"].text == edited
