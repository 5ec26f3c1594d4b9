import shutil
from pathlib import Path

from pallas_lsp.config import Config, find_config, with_known_rules


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
    assert any("records path outside the project: ../elsewhere.json (refused)" in p for p in cfg.problems)


def _hostile_project(tmp_path: Path) -> tuple[Path, Path]:
    """A project whose pyproject.toml names records outside it in every way a path can, next to
    an outside folder holding a real (valid) records file."""
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.json"
    secret.write_text('{"id": "s", "slug": "secret", "errorMessage": "m", "messagePattern": "m", '
                      '"errorClass": "E"}')
    ws = tmp_path / "ws"
    (ws / "recs").mkdir(parents=True)
    (ws / "mine.json").write_text("[]")
    (ws / "recs" / "good.json").write_text("[]")
    (ws / "link.json").symlink_to(secret)  # a link inside the project to a file outside
    (ws / "recs" / "evil.json").symlink_to(secret)  # ...and inside a records folder
    (ws / "outlink").symlink_to(outside)  # a link to a folder outside
    (ws / "loop.json").symlink_to(ws / "loop.json")
    return ws, secret


def test_records_paths_are_confined_to_the_project(tmp_path):
    ws, secret = _hostile_project(tmp_path)
    depth = "../" * len(ws.resolve().parts)
    entries = [str(secret), "/etc/shadow", "/etc", f"{depth}etc/passwd", "../outside/secret.json", "link.json",
               "outlink", "outlink/secret.json", "loop.json", "recs", "mine.json"]
    (ws / "pyproject.toml").write_text(f"[tool.pallas-lsp]\nrecords = {entries!r}\n".replace("'", '"'))
    for stop_at in (None, ws):  # the CLI / a server without a root, and a server with one
        cfg = find_config(ws / "k.py", stop_at=stop_at)
        assert set(cfg.records) == {str((ws / "mine.json").resolve()), str((ws / "recs" / "good.json").resolve())}
        refused = [p for p in cfg.problems if "outside the project" in p]
        shown = entries[:-2] + ["recs/evil.json"]
        assert refused == [f"{ws / 'pyproject.toml'}: records path outside the project: {e} (refused)"
                           for e in shown]
        # The message is the same for what exists and what does not: nothing about the target.
        assert not any(str(secret) in p or "exist" in p or "found" in p for p in refused[1:])


def test_editor_records_may_be_anywhere(tmp_path):
    """A user's own records (settings, --records) are not the workspace's: kept as given."""
    ws, secret = _hostile_project(tmp_path)
    (ws / "pyproject.toml").write_text('[tool.pallas-lsp]\nrecords = ["mine.json"]\n')
    cfg = find_config(ws / "k.py").merged(Config(records=(str(secret),)))
    assert cfg.records == (str(secret), str((ws / "mine.json").resolve()))


def _builtin_rules():
    from pallas_lsp.rules import default_rule_set

    return default_rule_set()


def test_unknown_rules_in_pyproject_are_reported_and_left_out(tmp_path):
    where = tmp_path / "pyproject.toml"
    where.write_text('[tool.pallas-lsp]\nselect = ["NOPE999"]\nignore = ["PAL998", "PAL004"]\n')
    cfg = with_known_rules(find_config(tmp_path / "k.py"), _builtin_rules())
    # Not an empty selection (that would run no rule): the default, every rule.
    assert cfg.select is None and cfg.ignore == ("PAL004",)
    assert f"{where}: `select`: unknown rule `NOPE999`" in cfg.problems[0]
    assert any(p == f"{where}: `select` names no known rule; using the default (all rules)" for p in cfg.problems)
    assert any(f"{where}: `ignore`: unknown rule `PAL998`" in p for p in cfg.problems)
    where.write_text('[tool.pallas-lsp]\nselect = ["NOPE999", "PAL00", "get-global-interpret"]\n')
    cfg = with_known_rules(find_config(tmp_path / "k.py"), _builtin_rules())
    assert cfg.select == ("PAL00", "get-global-interpret") and len(cfg.problems) == 1


def test_select_may_name_a_rule_the_projects_own_records_declare(tmp_path):
    """`records` beside `select`: the rules are checked against the rule set those records give
    the run (reading the file cannot know it: it keeps them as written)."""
    from pallas_lsp.records import default_store
    from pallas_lsp.rules import default_rule_set
    from tests.rules.test_user_record_kind import RECORD

    shutil.copy(RECORD, tmp_path / "team.json")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pallas-lsp]\nrecords = ["team.json"]\nselect = ["PAL190", "PAL99x"]\nignore = ["PAL190"]\n')
    raw = find_config(tmp_path / "k.py")
    assert raw.select == ("PAL190", "PAL99x") and raw.problems == ()
    with_team = default_rule_set(default_store(raw.records).records)
    cfg = with_known_rules(raw, with_team)
    assert cfg.select == ("PAL190",) and cfg.ignore == ("PAL190",)
    assert [p.split(" (")[0] for p in cfg.problems] == [f"{raw.source}: `select`: unknown rule `PAL99x`"]
    assert "PAL190" in cfg.problems[0]  # (the hint lists the run's rules)
    # The built-in rules alone know no PAL190.
    assert with_known_rules(raw, _builtin_rules()).select is None


def test_editor_settings_layer_under_file_config():
    file_cfg = Config(select=("PAL002",), ignore=("PAL004",))
    editor = Config(select=("PAL001",), ignore=("PAL003",), records=("/a.json",))
    m = file_cfg.merged(editor)
    assert m.select == ("PAL002",) and set(m.ignore) == {"PAL003", "PAL004"} and m.records == ("/a.json",)


def test_a_looping_symlink_still_gets_its_folders_config(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nignore = ["PAL004"]\n')
    (tmp_path / "loop.py").symlink_to("loop.py")
    assert find_config(tmp_path / "loop.py").ignore == ("PAL004",)


def test_what_if_key(tmp_path):
    from pallas_lsp.config import config_from_table

    assert config_from_table({"what-if": False}, tmp_path, "p.toml").what_if is False
    bad = config_from_table({"what-if": "no"}, tmp_path, "p.toml")
    assert bad.what_if is None and any("`what-if` must be true or false" in p for p in bad.problems)


def test_backends_may_list_the_cpu(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nbackends = ["tpu", "cpu", "gpu"]\n')
    cfg = find_config(tmp_path / "k.py")
    assert cfg.backends == ("tpu", "cpu")
    assert any("unknown backend `gpu` (known: tpu, triton, mosaic_gpu, cpu)" in p for p in cfg.problems)
