"""The workspace's jax release: the order of the sources, and the mapping onto shipped releases."""
from pathlib import Path

from pallas_lsp.lowering import PINNED_RELEASE, shipped_releases
from pallas_lsp.releases import DEFAULT, OWN, choose_release, map_to_shipped


def fake_venv(root: Path, version: str, name: str = ".venv") -> Path:
    prefix = root / name
    (prefix / "pyvenv.cfg").parent.mkdir(parents=True, exist_ok=True)
    (prefix / "pyvenv.cfg").write_text("home = /usr/bin\n")
    meta = prefix / "lib" / "python3.11" / "site-packages" / f"jax-{version}.dist-info" / "METADATA"
    meta.parent.mkdir(parents=True)
    meta.write_text(f"Metadata-Version: 2.1\nName: jax\nVersion: {version}\n")
    return prefix


def no_own_jax():
    return None


def test_shipped_releases_are_the_five_verified():
    assert shipped_releases() == ("0.8.3", "0.9.2", "0.10.2", "0.11.2", "0.12.0.1")


def test_mapping_exact_same_minor_and_out_of_range():
    assert map_to_shipped("0.10.2") == ("0.10.2", "")
    assert map_to_shipped("0.10.1") == ("0.10.2", "0.10.1: knowledge of 0.10.2 used")
    used, note = map_to_shipped("0.4.30")
    assert used == "0.8.3" and "nothing verified" in note
    used, note = map_to_shipped("0.13.0")
    assert used == "0.12.0.1" and "nothing verified" in note


def test_explicit_setting_wins_over_the_workspace_environment(tmp_path):
    fake_venv(tmp_path, "0.11.2")
    got = choose_release("0.10.2", None, tmp_path, explicit_from="--jax-version", own_version=no_own_jax)
    assert (got.version_found, got.release_used, got.source) == ("0.10.2", "0.10.2", "--jax-version")


def test_workspace_venv_is_read_without_any_setting(tmp_path):
    fake_venv(tmp_path, "0.10.2")
    got = choose_release(None, None, tmp_path, own_version=lambda: "0.12.0.1")
    assert (got.version_found, got.release_used, got.source) == ("0.10.2", "0.10.2", ".venv")
    assert not got.is_default and "jax 0.10.2 from .venv" in got.summary()


def test_python_setting_names_the_environment(tmp_path):
    prefix = fake_venv(tmp_path, "0.9.1", name="envs/old")
    got = choose_release(None, str(prefix), tmp_path, own_version=no_own_jax)
    assert got.release_used == "0.9.2" and got.note == "0.9.1: knowledge of 0.9.2 used"


def test_own_environment_then_the_newest_shipped(tmp_path):
    got = choose_release(None, None, tmp_path, own_version=lambda: "0.11.2")
    assert (got.release_used, got.source) == ("0.11.2", OWN)
    got = choose_release(None, None, tmp_path, own_version=no_own_jax)
    assert (got.version_found, got.release_used, got.source) == (None, shipped_releases()[-1], DEFAULT)
    assert got.is_default and got.release_used == PINNED_RELEASE


def test_malformed_setting_is_reported_and_the_next_source_decides(tmp_path):
    fake_venv(tmp_path, "0.10.2")
    got = choose_release("ten", None, tmp_path, explicit_from="pyproject.toml", own_version=no_own_jax)
    assert got.problem and "pyproject.toml" in got.problem and "'ten'" in got.problem
    assert got.release_used == "0.10.2"
