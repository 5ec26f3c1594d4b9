"""The atheris target, run briefly (CI's bounded mode), and every crash it ever found, replayed."""
import subprocess
import sys
from pathlib import Path

import pytest

from pallas_lsp.analysis import analyse
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
