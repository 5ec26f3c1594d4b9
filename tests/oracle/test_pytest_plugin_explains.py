"""The pytest plugin under real JAX: real failing kernels (the rules' own examples) run as
tests in the oracle's Python, and `--pallas-explain` puts each one's record in its report,
a host-callback failure (a GPU interpreter TMA reduce-store) included, with and without
pytest-xdist. The oracle's environment has jax but not pytest: the pure-Python pytest (and
xdist) of the running environment are lent to it through PYTHONPATH."""
import importlib.util
import os
import subprocess
from pathlib import Path

import pytest

from pallas_lsp.rules.examples import examples_dir
from tests.oracle.conftest import ROOT, _child_env

# The example folders the generated tests run, by code (each kind's examples/<CODE>/).
EXAMPLE_DIRS = {code: str(examples_dir(code)) for code in ("PAL001", "PAL106", "PAL201")}

PURE_PYTHON = ("pytest", "_pytest", "py", "pluggy", "iniconfig", "packaging", "pygments", "xdist", "execnet")

TESTS = f'''
import runpy

EXAMPLES = {EXAMPLE_DIRS!r}

def run(name):
    code, rest = name.split("/", 1)
    runpy.run_path(EXAMPLES[code] + "/" + rest, run_name="__main__")

def test_get_global_interpret():
    run("PAL001/invalid_01_get_global_interpret_true.py")

def test_non_decrementing_wait():
    run("PAL201/invalid_01_wait_without_decrement_forced.py")

def test_tma_reduce_in_host_callback():
    run("PAL106/invalid_01_tma_add_store.py")

def test_valid_kernel():
    run("PAL001/valid_01_semaphore_as_scratch.py")

def test_unrelated():
    assert 1 == 2
'''


def lend_pytest(site: Path) -> None:
    site.mkdir()
    for name in PURE_PYTHON:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            pytest.skip(f"{name} is not installed here (pip install -e '.[test]')")
        origin = Path(spec.origin)
        src = origin.parent if origin.name == "__init__.py" else origin
        (site / src.name).symlink_to(src)


def run_pytest(oracle, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = _child_env()
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "server"), str(tmp_path / "site")])
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # only the plugins named here
    return subprocess.run([oracle.python, "-m", "pytest", "-p", "pallas_lsp.pytest_plugin", "-p", "no:cacheprovider",
                           "-q", "-rN", *args, "test_kernels.py"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)


def sections(out: str) -> list[str]:
    """The text of each pallas-lsp section in the report."""
    parts = out.split(" pallas-lsp ")[1:]
    return [p.split("\n---", 1)[0].split("\n___", 1)[0].split("\n===", 1)[0] for p in parts]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_kernels.py").write_text(TESTS)
    lend_pytest(tmp_path / "site")
    return tmp_path


def check_explained(proc: subprocess.CompletedProcess) -> None:
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-3000:]
    assert "4 failed, 1 passed" in out, out[-3000:]
    found = sections(out)
    assert len(found) == 3, out[-5000:]  # the three record failures; not the unrelated assert
    by_slug = {s.split("record: ")[1].split()[0]: s for s in found}
    assert set(by_slug) == {"get-global-discharge-is-not-supported-in-interpret",
                            "tpu-interpret-non-decrementing-wait", "gpu-interpret-tma-reduction-op"}
    for text in found:
        assert "how to fix:" in text and "why: " in text and "upstream: https://github.com/jax-ml/jax/" in text
    # JAX's message is not the record's: the explanation says so
    assert "No ir_type_handler" in by_slug["get-global-discharge-is-not-supported-in-interpret"]
    # raised in the interpreter's host callback, reported as a JaxRuntimeError
    assert "JaxRuntimeError" in out


@pytest.mark.oracle
def test_explains_real_kernel_failures(oracle, project):
    check_explained(run_pytest(oracle, project, "--pallas-explain"))


@pytest.mark.oracle
def test_explains_under_xdist(oracle, project):
    check_explained(run_pytest(oracle, project, "--pallas-explain", "-p", "xdist.plugin", "-n", "2"))


@pytest.mark.oracle
def test_silent_without_the_flag(oracle, project):
    proc = run_pytest(oracle, project)
    assert "4 failed, 1 passed" in proc.stdout and sections(proc.stdout) == []
