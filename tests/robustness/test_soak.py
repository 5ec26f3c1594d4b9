"""A short soak (CI's bounded mode of benchmarks/lsp_latency.py --soak): many documents, many
edits whose texts repeat; the server keeps answering and its memory stops growing."""
from tests.conftest import CORPUS
from tests.robustness.rawclient import RawClient

SEEDS = sorted(CORPUS.glob("*.py"))


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        return next(int(row.split()[1]) for row in f if row.startswith("VmRSS")) / 1024


def test_short_soak_memory_is_flat():
    c = RawClient()
    c.initialize(pull=True)
    docs = [(f"file:///tmp/soak_{i}.py", SEEDS[i % len(SEEDS)].read_text()) for i in range(40)]
    for uri, text in docs:
        c.open(uri, text)
    version = {uri: 1 for uri, _ in docs}
    samples = []
    edits = 0
    for round_ in range(40):  # 40 rounds x 40 documents x 2 edits = 3,200 edits
        for uri, _ in docs:
            for text in ("    x = 1\n", ""):
                version[uri] += 1
                rng = {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 0}} if text else \
                    {"start": {"line": 2, "character": 0}, "end": {"line": 3, "character": 0}}
                c.change(uri, version[uri], [{"range": rng, "text": text}])
                edits += 1
            c.diagnostics(uri)
        if round_ in (10, 39):
            samples.append(rss_mb(c.proc.pid))
    assert c.alive()
    growth = samples[1] - samples[0]
    print(f"\nsoak: {edits} edits on {len(docs)} documents; RSS {samples[0]:.1f} -> {samples[1]:.1f} MB")
    assert growth < 25, samples  # texts repeat: no steady growth
    assert c.close() == 0
