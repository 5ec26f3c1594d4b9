"""The pytest plugin, loaded through the package's ``pytest11`` entry point: inert unless
asked, imports nothing of pallas-lsp's until a test fails, never changes an outcome, works
with pytest-xdist and without the cache provider. (Under real JAX, with real kernels:
tests/oracle/test_pytest_plugin_explains.py.)"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pallas_lsp import pytest_plugin

JAX_MESSAGE = "No ir_type_handler for aval type: <class 'jax._src.state.types.AbstractRef'>"
TESTS = f'''
import sys
import pytest

def test_passes():
    pass

def test_get_global_in_interpret_mode():
    raise TypeError({JAX_MESSAGE!r})

def test_chained_host_callback_error():
    try:
        raise NotImplementedError("Non-decrementing wait is not supported.")
    except NotImplementedError as exc:
        raise RuntimeError("INTERNAL: CpuCallback error calling callback") from exc

def test_unrelated():
    assert 1 == 2

@pytest.mark.xfail(raises=TypeError, strict=True)
def test_expected_to_fail():
    raise TypeError({JAX_MESSAGE!r})
'''
# Which pallas-lsp modules a run imported, written when the session ends.
CONFTEST = '''
import json, sys

def pytest_sessionfinish(session):
    loaded = sorted(m for m in sys.modules if m.startswith("pallas_lsp"))
    with open("loaded.json", "w") as fh:
        json.dump(loaded, fh)
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_kernels.py").write_text(TESTS)
    (tmp_path / "conftest.py").write_text(CONFTEST)
    return tmp_path


def run_pytest(project: Path, *args: str, tests: str = "test_kernels.py") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PALLAS_"))}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rN", *args, tests],
                          cwd=project, env=env, capture_output=True, text=True, timeout=300)


def sections(out: str) -> list[str]:
    return [p.split("\n___", 1)[0].split("\n===", 1)[0] for p in out.split(" pallas-lsp ")[1:]]


def summary(out: str) -> str:
    return re.findall(r"^\d+ failed.*$", out, re.M)[-1].split(" in ")[0]


def loaded(project: Path) -> list[str]:
    import json

    return json.loads((project / "loaded.json").read_text())


def test_explains_matching_failures_through_the_entry_point(project):
    proc = run_pytest(project, "--pallas-explain")
    assert proc.returncode == 1, proc.stdout[-3000:]
    found = sections(proc.stdout)
    assert len(found) == 2, proc.stdout[-4000:]  # not the unrelated assert, not the xfail
    get_global, chained = found
    assert "record: get-global-discharge-is-not-supported-in-interpret" in get_global
    assert f"matched: TypeError: {JAX_MESSAGE}" in get_global
    assert "note: In jax 0.12 a `pl.get_global`" in get_global
    assert "how to fix:" in get_global and "why: " in get_global and "what happened: " in get_global
    assert "upstream: https://github.com/jax-ml/jax/" in get_global
    assert "record: tpu-interpret-non-decrementing-wait" in chained  # found through __cause__


def test_without_the_flag_nothing_is_added_or_imported(project):
    proc = run_pytest(project)
    assert sections(proc.stdout) == []
    assert loaded(project) == ["pallas_lsp", "pallas_lsp.pytest_plugin"]


@pytest.mark.slow  # inner pytest runs (~6 s)
def test_analysis_is_imported_only_once_a_test_fails(project):
    proc = run_pytest(project, "--pallas-explain", "-k", "passes or expected")
    assert proc.returncode == 0, proc.stdout
    assert loaded(project) == ["pallas_lsp", "pallas_lsp.pytest_plugin"]
    run_pytest(project, "--pallas-explain", "-k", "unrelated")
    assert "pallas_lsp.records" in loaded(project) and "pallas_lsp.analysis" not in loaded(project)


@pytest.mark.slow  # inner pytest runs (~9 s)
def test_outcomes_and_exit_codes_do_not_change(project):
    plain, explained = run_pytest(project), run_pytest(project, "--pallas-explain")
    assert (plain.returncode, summary(plain.stdout)) == (explained.returncode, summary(explained.stdout))
    assert summary(plain.stdout) == "3 failed, 1 passed, 1 xfailed"


def test_the_ini_option_turns_it_on(project):
    (project / "pytest.ini").write_text("[pytest]\npallas_explain = true\n")
    assert len(sections(run_pytest(project).stdout)) == 2


def test_it_is_the_entry_point_that_loads_it(project):
    proc = run_pytest(project, "-p", "no:pallas_lsp", "--pallas-explain")
    assert proc.returncode == 4 and "unrecognized arguments: --pallas-explain" in proc.stderr


@pytest.mark.slow  # inner pytest with xdist workers (~11 s)
def test_under_xdist(project):
    pytest.importorskip("xdist")
    proc = run_pytest(project, "--pallas-explain", "-n", "2")
    assert summary(proc.stdout) == "3 failed, 1 passed, 1 xfailed", proc.stdout[-3000:]
    found = sections(proc.stdout)
    assert len(found) == 2 and all("record: " in s for s in found), proc.stdout[-4000:]


def test_inert_in_this_projects_own_run(request):
    assert request.config.pluginmanager.has_plugin("pallas_lsp")
    if request.config.getoption("pallas_explain") is None and not request.config.getini("pallas_explain"):
        assert not pytest_plugin._enabled(request.config)
