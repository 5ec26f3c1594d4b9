"""The pytest plugin under real JAX names the record of errors JAX raises with no message (by
the frame that raised them, issue 38), a host-callback one included; a bare raise in the
test's own code stays unexplained."""
import pytest

from tests.oracle.test_pytest_plugin_explains import lend_pytest, run_pytest, sections
from tests.test_explain import PASTED

TESTS = f'''
import runpy

def run(name):
    runpy.run_path(str({str(PASTED / "programs")!r}) + "/" + name + ".py", run_name="__main__")

def test_grad_of_scalar_prefetch_kernel():
    run("jvp_scalar_prefetch_grad_tpu_params")

def test_blocked_kernel_interpreted_in_host_callback():
    run("blockspec_gpu_interpret_in_pure_callback")

def test_own_bare_raise():
    run("user_code_bare_notimplemented_twin")
'''


@pytest.mark.oracle
def test_bare_raises_are_explained_by_their_frame(oracle, tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_kernels.py").write_text(TESTS)
    lend_pytest(tmp_path / "site")
    proc = run_pytest(oracle, tmp_path, "--pallas-explain")
    out = proc.stdout + proc.stderr
    assert "3 failed" in out, out[-3000:]
    found = sections(out)
    by_slug = {s.split("record: ")[1].split()[0]: s for s in found}
    assert set(by_slug) == {"pallas-call-jvp-scalar-prefetch", "gpu-interpret-blockspec-not-whole-array"}, out[-5000:]
    assert all("with no message" in s for s in found)
