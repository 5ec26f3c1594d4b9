"""The atheris target, run briefly (CI's bounded mode), every crash it ever found, replayed, and
the hostile shapes it is seeded with (fuzz/hostile_shapes.py), replayed in a bounded subprocess."""
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pallas_lsp.rules import analyse
from tests.conftest import CORPUS, ROOT

CRASHES = sorted((Path(__file__).parent / "fuzz_crashes").glob("crash-*"))


def decode_like_the_target(data: bytes) -> str:
    import atheris

    fdp = atheris.FuzzedDataProvider(data)
    return fdp.ConsumeUnicodeNoSurrogates(len(data))


@pytest.mark.parametrize("crash", CRASHES, ids=[p.name[:18] for p in CRASHES])
def test_fuzz_crash_regressions(crash):
    text = decode_like_the_target(crash.read_bytes())
    analyse(text, "fuzz.py")  # must not raise


@pytest.mark.slow  # a real fuzzer run (~25 s)
def test_fuzz_target_short_run(tmp_path):
    pytest.importorskip("atheris", reason="atheris is in the test extra; install it with pip install -e '.[test]'")
    out = tmp_path / "corpus"
    out.mkdir()
    proc = subprocess.run([sys.executable, str(ROOT / "fuzz" / "fuzz_analysis.py"), "-max_total_time=20",
                           "-rss_limit_mb=3072", f"-artifact_prefix={tmp_path}/", str(out), str(CORPUS)],
                          capture_output=True, text=True, timeout=180, cwd=tmp_path)
    crashes = list(tmp_path.glob("crash-*")) + list(tmp_path.glob("oom-*")) + list(tmp_path.glob("timeout-*"))
    assert proc.returncode == 0 and not crashes, proc.stderr[-3000:]
    assert "Done" in proc.stderr  # it really ran


REPLAY_SEEDS = textwrap.dedent("""
    import json, resource, sys, time
    resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))
    sys.path.insert(0, sys.argv[1])
    import atheris
    from hostile_shapes import nested_input, seed_inputs
    from pallas_lsp.rules import analyse
    slowest = (0.0, "")
    for name, data in sorted(seed_inputs().items()):
        text = nested_input(data)
        if text is None:
            text = atheris.FuzzedDataProvider(data).ConsumeUnicodeNoSurrogates(len(data))
        t = time.perf_counter()
        analyse(text, "fuzz.py")
        slowest = max(slowest, (time.perf_counter() - t, name))
    print(json.dumps({"count": len(seed_inputs()), "slowest": slowest}))
""")


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS as used here is a Linux fact")
def test_hostile_seeds_replay_bounded():
    pytest.importorskip("atheris", reason="atheris is in the test extra; install it with pip install -e '.[test]'")
    # Each seed as the fuzz target reads it; a nesting regression kills the subprocess (SIGSEGV)
    # or runs into the memory limit or the timeout instead of taking pytest down.
    proc = subprocess.run([sys.executable, "-c", REPLAY_SEEDS, str(ROOT / "fuzz")], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-3000:])
    got = json.loads(proc.stdout)
    assert got["count"] > 50
    assert got["slowest"][0] < 10, got["slowest"]


def test_fuzz_target_reads_nested_inputs():
    from fuzz.hostile_shapes import NESTED_KINDS, nested_input, nested_seed
    assert nested_input(b"plain text") is None
    text = nested_input(nested_seed(0, 3, "rest\n"))
    assert text == "x = (((y)))\nrest\n"
    assert len(NESTED_KINDS) > 10
