from pallas_lsp.environment import workspace_jax_version


def test_jax_version_read_from_metadata(tmp_path):
    venv = tmp_path / ".venv"
    meta = venv / "lib" / "python3.12" / "site-packages" / "jax-0.10.2.dist-info"
    meta.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: jax\nVersion: 0.10.2\n")
    assert workspace_jax_version(None, tmp_path) == "0.10.2"
    assert workspace_jax_version(str(venv), None) == "0.10.2"
    # (what the hover says of the release chosen from it: tests/lsp/test_release_choice.py)


def test_no_environment_no_version(tmp_path):
    assert workspace_jax_version(None, tmp_path) is None
