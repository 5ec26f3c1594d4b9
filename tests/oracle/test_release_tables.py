"""Each older release's shipped knowledge under that release's real JAX (issue 43): regenerating
its lowering tables and release facts (``scripts/gen_lowering_tables.py`` in ``.oracle-env-X``)
gives the shipped bytes of ``server/pallas_lsp/records/releases/jax-X/``.

scripts/test builds every release's environment and sets PALLAS_REQUIRE_RELEASE_ENVS=1, so in CI
a missing environment fails; elsewhere it skips with the command that builds it."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pallas_lsp.lowering import PINNED_RELEASE, shipped_releases

from .conftest import ROOT, release_python_or_skip

pytestmark = pytest.mark.oracle

RELEASES_DIR = ROOT / "server" / "pallas_lsp" / "records" / "releases"
GENERATOR = ROOT / "scripts" / "gen_lowering_tables.py"
OLDER = [r for r in shipped_releases() if r != PINNED_RELEASE]


@pytest.mark.parametrize("release", OLDER)
def test_regenerating_a_release_gives_its_shipped_tables(release: str, tmp_path: Path) -> None:
    shipped = RELEASES_DIR / f"jax-{release}"
    out = tmp_path / f"jax-{release}"
    shutil.copytree(shipped, out)  # (the generator keeps the date when nothing else changed)
    proc = subprocess.run([release_python_or_skip(release), str(GENERATOR), "--out", str(out)], capture_output=True,
                          text=True, timeout=600, env=dict(os.environ, JAX_PLATFORMS="cpu"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    names = sorted(p.name for p in shipped.iterdir())
    assert sorted(p.name for p in out.iterdir()) == names
    changed = [name for name in names if (out / name).read_bytes() != (shipped / name).read_bytes()]
    assert not changed, (f"jax {release} now gives other {changed}: regenerate with `.oracle-env-{release}/bin/python "
                         f"scripts/gen_lowering_tables.py --out {shipped.relative_to(ROOT)}` and commit")
