"""Following kernels across modules: helpers one and two modules away, an inline_mgpu library,
a kernel imported into a test that launches it with interpret=True, re-exports through
__init__.py, a config constant, an import cycle, and compiled launches that must not be flagged."""
import json
import shutil
import subprocess

import pytest

from pallas_lsp.analysis.engine import Engine
from pallas_lsp.analysis.program import Program
from tests.conftest import DATA, pallas_cli

WS = DATA / "workspaces" / "kernels_ws"
EXPECTED = json.loads((WS / "expected.json").read_text())


@pytest.fixture()
def ws(tmp_path):
    dst = tmp_path / "ws"
    shutil.copytree(WS, dst)
    return dst


def markers(root):
    return sorted(p.name for p in root.rglob("*") if "IMPORTED" in p.name)


def test_cli_flags_exactly_the_constructs(ws):
    proc = subprocess.run(pallas_cli() + ["check", "--output-format", "json", str(ws)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    got = {}
    for f in json.loads(proc.stdout):
        rel = str(__import__("pathlib").Path(f["path"]).relative_to(ws))
        got.setdefault(rel, []).append([f["code"], f["line"], f["severity"]])
    assert got == EXPECTED
    assert markers(ws) == []  # nothing was imported or executed


def test_findings_name_the_caller_that_makes_them_fail(ws):
    prog = Program(ws)
    r = Engine().analyse_in(prog, str(ws / "pkg" / "sync.py"))
    (f,) = r.findings
    assert "`test_scale`" in f.message and "tests/test_kernels.py:12" in f.message
    assert {(rel.path and rel.path.endswith("test_kernels.py"), rel.span.line) for rel in f.related} >= {(True, 12)}
    r = Engine().analyse_in(prog, str(ws / "pkg" / "cpu_only.py"))
    (f,) = r.findings
    assert f.severity.value == "warning" and "interprets on CPU hosts" in f.message


def test_module_open_alone_sees_launches_elsewhere_and_test_sees_its_launches(ws):
    prog = Program(ws)
    e = Engine()
    helper = e.analyse_in(prog, str(ws / "pkg" / "mgpu_kernels.py"))
    assert [(f.code, f.span.line, f.secondary) for f in helper.findings] == [("PAL003", 6, False)]
    test = e.analyse_in(prog, str(ws / "tests" / "test_kernels.py"))
    assert sorted((f.code, f.span.line, f.secondary) for f in test.findings) == [("PAL001", 12, True),
                                                                                   ("PAL003", 18, True)]
    compiled = e.analyse_in(prog, str(ws / "pkg" / "compiled.py"))
    assert compiled.findings == []
    assert markers(ws) == []


def test_editing_a_helper_updates_the_modules_that_reach_it(ws):
    texts = {}

    def read(path):
        return texts.get(path) or open(path).read()

    prog = Program(ws, read=read)
    e = Engine()
    test_path = str(ws / "tests" / "test_kernels.py")
    assert len(e.analyse_in(prog, test_path).findings) == 2
    lib = str(ws / "pkg" / "mgpu_kernels.py")
    texts[lib] = open(lib).read().replace("    fence(o_ref)\n", "")
    prog.forget(lib)
    assert [f.code for f in e.analyse_in(prog, test_path).findings] == ["PAL001"]


def test_cycles_and_depth_are_bounded(tmp_path):
    for i in range(30):
        (tmp_path / f"m{i}.py").write_text(f"from m{(i + 1) % 30} import f{(i + 1) % 30}\n\n"
                                           f"def f{i}(o_ref):\n    f{(i + 1) % 30}(o_ref)\n")
    (tmp_path / "k.py").write_text(
        "from jax.experimental import pallas as pl\nfrom m0 import f0\n\n"
        "def k(x_ref, o_ref):\n    f0(o_ref)\n\nf = pl.pallas_call(k, out_shape=None, interpret=True)\n")
    r = Engine().analyse_in(Program(tmp_path), str(tmp_path / "k.py"))
    assert r.findings == []


def test_a_module_that_starts_importing_another_becomes_its_importer(tmp_path):
    """The import graph is cached; a module edited to import another (after the graph was
    first asked for) must show up among that module's importers."""
    (tmp_path / "kernels.py").write_text("def kernel(x_ref, o_ref):\n    pass\n")
    (tmp_path / "runner.py").write_text("import jax\n")
    texts = {str(tmp_path / "kernels.py"): (tmp_path / "kernels.py").read_text(),
             str(tmp_path / "runner.py"): (tmp_path / "runner.py").read_text()}
    prog = Program(tmp_path, read=lambda p: texts.get(p))
    assert prog.importers_of(str(tmp_path / "kernels.py")) == []
    texts[str(tmp_path / "runner.py")] = "import jax\nfrom kernels import kernel\n"
    prog.forget(str(tmp_path / "runner.py"))
    assert prog.importers_of(str(tmp_path / "kernels.py")) == [str(tmp_path / "runner.py")]
