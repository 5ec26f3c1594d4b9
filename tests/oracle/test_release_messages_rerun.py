"""What each older release prints for the rules' invalid examples, produced again by running
(issue 43): ``scripts/collect_release_messages.py`` under jax 0.10.2 and 0.11.2 must give the
committed ``tests/data/releases/messages/jax-X.json`` (outcome, class, first message line, raise
site, whether it is what the example's ``# raises:`` says), but for its date. The records'
per-release wordings are read from these files (scripts/release_wordings.py), so this is what
holds them to running.

About 2-3 minutes per release on 2 cores (docs/releases.md). A missing release environment
fails under scripts/test (PALLAS_REQUIRE_RELEASE_ENVS=1) and skips elsewhere."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT, release_python_or_skip

pytestmark = pytest.mark.oracle

RELEASES = ("0.10.2", "0.11.2")
MESSAGES = ROOT / "tests" / "data" / "releases" / "messages"


def _runs(path: Path) -> dict:
    return json.loads(path.read_text())["cases"]


@pytest.mark.parametrize("release", RELEASES)
def test_running_the_examples_under_a_release_gives_its_committed_messages(release: str, tmp_path: Path) -> None:
    python = release_python_or_skip(release)
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "collect_release_messages.py"), "--jax", release,
                           "--python", python, "--out", str(tmp_path)], capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got, kept = _runs(tmp_path / f"jax-{release}.json"), _runs(MESSAGES / f"jax-{release}.json")
    changed = sorted(key for key in set(got) | set(kept) if got.get(key) != kept.get(key))
    assert not changed, (f"jax {release} now prints otherwise for {len(changed)} example(s) "
                         f"({', '.join(changed[:4])}): "
                         f"rerun `scripts/collect_release_messages.py --jax {release}`, then "
                         f"`scripts/release_wordings.py`, and commit")
