"""``pallas-lsp check`` on Jupyter notebooks: found in folders, cells joined as one module,
findings named by cell in every format, suppressions in cells, malformed notebooks reported."""
import json

from pallas_lsp.cli import main
from pallas_lsp.notebooks import join_notebook

IMPORTS = """import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
"""
KERNEL = """%timeit -n1 pass
def add_one_kernel(x_ref, o_ref):
    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
    pl.semaphore_signal(sem)
    pl.semaphore_wait(sem)
    o_ref[...] = x_ref[...] + 1.0
"""
LAUNCH = """!nvidia-smi
x = jnp.arange(8, dtype=jnp.float32)
y = pl.pallas_call(add_one_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                   interpret=True)(x)
"""


def code(source: str, *, as_list: bool = True) -> dict:
    return {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
            "source": source.splitlines(keepends=True) if as_list else source}


def markdown(source: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": [source]}


def notebook(*cells: dict, language: str = "python") -> str:
    return json.dumps({"cells": list(cells), "metadata": {"language_info": {"name": language}},
                       "nbformat": 4, "nbformat_minor": 5})


def issue_notebook(kernel: str = KERNEL) -> str:
    """The issue's notebook: cell 2 has the kernel's `pl.get_global`, cell 4 the interpreted launch."""
    return notebook(code(IMPORTS), code(kernel), markdown("Now run it"), code(LAUNCH, as_list=False))


def check(capsys, *args: str) -> tuple[int, str, str]:
    rc = main(["check", "--no-config", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_a_notebook_given_is_checked_and_findings_name_the_cell(tmp_path, capsys, monkeypatch):
    (tmp_path / "nb.ipynb").write_text(issue_notebook())
    monkeypatch.chdir(tmp_path)
    rc, out, _ = check(capsys, "nb.ipynb")
    assert rc == 1
    first = out.splitlines()[0]
    # cell 2, line 3 of that cell (line 1 is a magic, blanked but kept), column of `pl.get_global`
    assert first.startswith("nb.ipynb:cell 2:3:11: PAL001 [error] "), out
    assert "nb.ipynb:cell 4:3: kernel `add_one_kernel` launched here" in out
    assert "Found 1 problem in 1 file." in out


def test_notebooks_are_found_in_folders(tmp_path, capsys):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "nb.ipynb").write_text(issue_notebook())
    (tmp_path / "clean.py").write_text("x = 1\n")
    rc, out, _ = check(capsys, str(tmp_path))
    assert rc == 1 and "nb.ipynb:cell 2:3:11: PAL001" in out


def test_json_sarif_and_github_carry_the_cell(tmp_path, capsys, monkeypatch):
    (tmp_path / "nb.ipynb").write_text(issue_notebook())
    monkeypatch.chdir(tmp_path)
    _, out, _ = check(capsys, "nb.ipynb", "--output-format", "json")
    (f,) = json.loads(out)
    assert (f["path"], f["cell"], f["line"], f["column"], f["code"]) == ("nb.ipynb", 2, 3, 11, "PAL001")
    assert f["end_line"] == 3
    assert {"cell": 4, "line": 3} .items() <= next(r for r in f["related"] if "launched" in r["message"]).items()
    _, out, _ = check(capsys, "nb.ipynb", "--output-format", "sarif")
    (res,) = json.loads(out)["runs"][0]["results"]
    assert res["properties"]["cell"] == 2
    assert res["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    _, out, _ = check(capsys, "nb.ipynb", "--output-format", "github")
    assert out.startswith("::error file=nb.ipynb,title=PAL001::cell 2:3:11: "), out


def test_python_files_keep_their_formats(tmp_path, capsys, monkeypatch):
    plain = IMPORTS + KERNEL.replace("%timeit -n1 pass\n", "") + LAUNCH.replace("!nvidia-smi\n", "")
    (tmp_path / "k.py").write_text(plain)
    monkeypatch.chdir(tmp_path)
    _, out, _ = check(capsys, "k.py", "--output-format", "json")
    (f,) = json.loads(out)
    assert "cell" not in f and f["line"] == 6


def test_suppression_comment_in_a_cell(tmp_path, capsys):
    kernel = KERNEL.replace("REGULAR)\n", "REGULAR)  # pallas-lsp: ignore[PAL001]\n")
    (tmp_path / "nb.ipynb").write_text(issue_notebook(kernel))
    rc, out, _ = check(capsys, str(tmp_path / "nb.ipynb"))
    assert rc == 0 and "No problems found." in out


def test_a_malformed_notebook_is_reported_and_the_rest_checked(tmp_path, capsys, monkeypatch):
    (tmp_path / "broken.ipynb").write_text('{"cells": [')
    (tmp_path / "nocells.ipynb").write_text('{"metadata": {}}')
    (tmp_path / "nb.ipynb").write_text(issue_notebook())
    monkeypatch.chdir(tmp_path)
    rc, out, _ = check(capsys, ".")
    assert rc == 1
    assert "broken.ipynb:1:1: PAL902 [error] Cannot read notebook: not valid notebook JSON" in out
    assert "nocells.ipynb:1:1: PAL902 [error] Cannot read notebook: not a notebook" in out
    assert "nb.ipynb:cell 2:3:11: PAL001" in out
    assert "Found 3 problems in 3 files." in out


def test_other_languages_and_cell_magics_are_not_python(tmp_path, capsys):
    (tmp_path / "r.ipynb").write_text(notebook(code("library(x)\n"), language="R"))
    (tmp_path / "bash.ipynb").write_text(notebook(code("%%bash\nif [ 1 ]; then echo; fi\n")))
    rc, out, _ = check(capsys, str(tmp_path))
    assert rc == 0, out


def test_fix_and_diff_do_not_write_notebooks(tmp_path, capsys):
    nb = tmp_path / "nb.ipynb"
    nb.write_text(issue_notebook())
    before = nb.read_bytes()
    rc, out, _ = check(capsys, str(nb), "--fix", "--unsafe-fixes")
    assert rc == 1 and "PAL001" in out and nb.read_bytes() == before
    rc, out, _ = check(capsys, str(nb), "--diff", "--unsafe-fixes")
    assert out == "" and nb.read_bytes() == before


def test_joining_keeps_every_line_in_place():
    joined = join_notebook(notebook(code("a = 1\r\n%time b\r\nc = 2"), markdown("x"), code("!ls\nd = 3\n")))
    assert joined.text == "a = 1\n\nc = 2\n\nd = 3\n"
    assert [(c.cell, c.first_line, len(c.lines)) for c in joined.cells] == [(1, 1, 3), (3, 4, 2)]


def test_ipython_syntax_is_blanked():
    cell = "files = !ls\nt = %timeit -o f()\nnp.zeros?\n?np\nx = 1  # a comment?\ny = {'a': 1}\n"
    joined = join_notebook(notebook(code(cell)))
    assert joined.text == "\n\n\n\nx = 1  # a comment?\ny = {'a': 1}\n"


def test_statistics_and_exit_zero(tmp_path, capsys):
    (tmp_path / "nb.ipynb").write_text(issue_notebook())
    (tmp_path / "broken.ipynb").write_text("[")
    rc, out, _ = check(capsys, str(tmp_path), "--statistics")
    assert rc == 1
    assert out.splitlines() == ["1\tPAL001\t[ ] get-global-interpret", "1\tPAL902\t[ ] unreadable-file"]
    rc, out, _ = check(capsys, str(tmp_path), "--statistics", "--output-format", "json")
    assert json.loads(out) == [{"code": "PAL001", "name": "get-global-interpret", "count": 1, "fixable": False},
                               {"code": "PAL902", "name": "unreadable-file", "count": 1, "fixable": False}]
    rc, out, _ = check(capsys, str(tmp_path), "--exit-zero")
    assert rc == 0 and "PAL001" in out
    assert main(["check", "--exit-zero", str(tmp_path / "missing")]) == 2  # usage errors stay errors


def test_statistics_marks_the_fixable(capsys):
    from tests.conftest import ROOT

    rc, out, _ = check(capsys, str(ROOT / "examples" / "debug_on_laptop.py"), "--statistics")
    assert rc == 1
    assert "1\tPAL003\t[*] inline-mgpu-interpret" in out.splitlines()


def test_cells_cross_worker_processes(tmp_path, capsys, monkeypatch):
    for i in range(9):  # (check -j runs workers only for more than 8 files)
        (tmp_path / f"m{i}.py").write_text("x = 1\n")
    (tmp_path / "nb.ipynb").write_text(issue_notebook())
    monkeypatch.chdir(tmp_path)
    _, out, _ = check(capsys, ".", "-j", "2", "--output-format", "json")
    (f,) = json.loads(out)
    assert (f["path"], f["cell"], f["line"]) == ("nb.ipynb", 2, 3)
