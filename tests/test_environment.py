from pallas_lsp.environment import workspace_jax_version
from pallas_lsp.present import finding_hover
from pallas_lsp.rules import analyse
from pallas_lsp.records import default_store
from tests.conftest import CORPUS


def test_jax_version_read_from_metadata_and_said_in_hovers(tmp_path):
    venv = tmp_path / ".venv"
    meta = venv / "lib" / "python3.12" / "site-packages" / "jax-0.10.2.dist-info"
    meta.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: jax\nVersion: 0.10.2\n")
    assert workspace_jax_version(None, tmp_path) == "0.10.2"
    assert workspace_jax_version(str(venv), None) == "0.10.2"
    (f,) = analyse((CORPUS / "get_global_interpret_true_basic.py").read_text(), "x.py").findings
    md = finding_hover(f, default_store(), env_jax="0.10.2")
    assert "Your environment has jax 0.10.2" in md and "0.12.0.1" in md
    assert "Your environment" not in finding_hover(f, default_store(), env_jax="0.12.0.1")


def test_no_environment_no_version(tmp_path):
    assert workspace_jax_version(None, tmp_path) is None
