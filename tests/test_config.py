from pathlib import Path

from pallas_lsp.config import Config, find_config


def test_nearest_pyproject_and_relative_records(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nselect = ["PAL001"]\nrecords = ["r.json"]\n')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "pyproject.toml").write_text("[project]\nname = 'x'\n")  # no table: keep looking up
    cfg = find_config(tmp_path / "sub" / "k.py")
    assert cfg.select == ("PAL001",) and cfg.records == (str((tmp_path / "r.json").resolve()),)


def test_bad_values_and_broken_toml(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nselect = 1\nwhat = 2\n')
    cfg = find_config(tmp_path / "k.py")
    assert cfg.select is None and any("select" in p for p in cfg.problems) and any("what" in p for p in cfg.problems)
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp\n')
    cfg = find_config(tmp_path / "k.py")
    assert any("not valid TOML" in p for p in cfg.problems)


def test_records_outside_the_workspace_are_refused(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "pyproject.toml").write_text('[tool.pallas-lsp]\nrecords = ["../elsewhere.json", "mine.json"]\n')
    cfg = find_config(ws / "k.py", stop_at=ws)
    assert cfg.records == (str((ws / "mine.json").resolve()),)
    assert any("outside the workspace" in p for p in cfg.problems)


def test_editor_settings_layer_under_file_config():
    file_cfg = Config(select=("PAL002",), ignore=("PAL004",))
    editor = Config(select=("PAL001",), ignore=("PAL003",), records=("/a.json",))
    m = file_cfg.merged(editor)
    assert m.select == ("PAL002",) and set(m.ignore) == {"PAL003", "PAL004"} and m.records == ("/a.json",)
