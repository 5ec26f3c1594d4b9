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
    for n in range(300):
        text = rng.choice(seeds) * rng.randint(1, 3)
        key = f"doc{n % 7}"
        blocks.split_blocks(text, key)
        for _ in range(rng.randint(1, 6)):
            a = rng.randint(0, len(text))
            b = min(len(text), a + rng.randint(0, 40))
            text = text[:a] + rng.choice(PIECES) + text[b:]
            inc = blocks.split_blocks(text, key)
            full = blocks.split_blocks(text)
            assert [(x.start_line, x.end_line, x.kind, x.text, x.broken) for x in inc] == \
                   [(x.start_line, x.end_line, x.kind, x.text, x.broken) for x in full]
            checked += 1
    assert checked > 500
