"""The per-release labels, produced again by running (issue 43): every shared corpus is run under
jax 0.10.2 and 0.11.2 (``scripts/relabel_releases.py``, each case in that release's environment)
and must give the committed label file, but for its date. A release that starts to behave
otherwise, a case changed in ../shared, or a change to how agreement is judged fails here, with
the command that rewrites the file.

Costs about 3 minutes per release on 2 cores (docs/releases.md). 0.9.2's labels (about 10
minutes) are held to their layout and coverage only (tests/test_release_labels.py). Skipped where
../shared/<corpus> is not here; a missing release environment fails under scripts/test
(PALLAS_REQUIRE_RELEASE_ENVS=1) and skips elsewhere."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT, release_python_or_skip

pytestmark = pytest.mark.oracle

RELEASES = ("0.10.2", "0.11.2")
CORPORA = ("corpus", "corpus-wave2", "corpus-prims", "corpus-structure")
LABELS = ROOT / "tests" / "data" / "releases"
SHARED = ROOT.parent / "shared"


def _without_date(path: Path) -> dict:
    data = json.loads(path.read_text())
    data["header"].pop("date", None)
    return data


@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize("release", RELEASES)
def test_running_a_corpus_under_a_release_gives_its_committed_labels(release: str, corpus: str,
                                                                     tmp_path: Path) -> None:
    if not (SHARED / corpus / "labels.json").is_file():
        pytest.skip(f"../shared/{corpus} is not here")
    python = release_python_or_skip(release)
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "relabel_releases.py"), "--jax", release,
                           "--corpus", corpus, "--python", python, "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = _without_date(tmp_path / f"jax-{release}" / f"{corpus}.json")
    kept = _without_date(LABELS / f"jax-{release}" / f"{corpus}.json")
    changed = sorted(name for name in set(got["cases"]) | set(kept["cases"])
                     if got["cases"].get(name) != kept["cases"].get(name))
    assert not changed and got == kept, (
        f"jax {release} now does otherwise on {len(changed)} {corpus} case(s) ({', '.join(changed[:5])}): rerun "
        f"`scripts/relabel_releases.py --jax {release} --corpus {corpus}` and commit the file")
