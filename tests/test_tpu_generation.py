"""The ``tpu-generation`` setting (``[tool.pallas-lsp]``, ``check --tpu-generation``, the server's
``tpuGeneration``): which TPU chip the code targets, so that a kind only a chip shows is claimed
for the generations whose chip showed it (records' ``chips``; docs/chips.md)."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from pallas_lsp.checker import Checker
from pallas_lsp.chips import ChipClaims
from pallas_lsp.config import Config, config_from_table
from pallas_lsp.lsp.settings import parse_settings
from pallas_lsp.records import parse_records_text
from pallas_lsp.rules import default_engine
from tests.conftest import pallas_cli
from tests.test_cli_team_rules import SHARED_SCRATCH, OWN_SCRATCH
from tests.rules.test_user_record_kind import RECORD

SEEN = "(seen on TPU v5e, jax 0.10.2)"


def _team_record(chips) -> dict:
    """The team's PAL190 record with ``chips``: a kind that stands in for one only a chip shows."""
    obj = json.loads(Path(RECORD).read_text())
    obj["record"]["chips"] = chips
    return obj


def _checker(tmp_path, generation: str | None, chips=({"generation": "v5e", "releases": ["0.10.2"]},)):
    path = tmp_path / "team.json"
    path.write_text(json.dumps(_team_record(list(chips))))
    records, problems = parse_records_text(path.read_text(), str(path))
    assert problems == []
    base = Config(tpu_generation=generation, tpu_generation_from="--tpu-generation" if generation else None)
    checker = Checker(default_engine(records=records), base, use_file_config=False)
    checker.chip_claims = ChipClaims.of(records)
    return checker


def _messages(checker, tmp_path, text=SHARED_SCRATCH) -> list[str]:
    kern = tmp_path / "kern.py"
    kern.write_text(text)
    return [f.message for f in checker.check_file(kern) if f.code == "PAL190"]


def test_no_generation_chosen_the_finding_says_where_it_was_seen(tmp_path):
    got = _messages(_checker(tmp_path, None), tmp_path)
    assert len(got) == 1 and got[0].endswith(SEEN)


def test_the_generation_the_chip_showed_gets_the_finding_as_the_rule_made_it(tmp_path):
    got = _messages(_checker(tmp_path, "v5e"), tmp_path)
    assert len(got) == 1 and SEEN not in got[0]
    assert _messages(_checker(tmp_path, None), tmp_path)[0] == got[0] + " " + SEEN


def test_a_generation_nobody_ran_gets_no_finding(tmp_path):
    assert _messages(_checker(tmp_path, "v6e"), tmp_path) == []
    assert _messages(_checker(tmp_path, "v4"), tmp_path) == []


def test_a_kind_without_chips_is_the_same_for_every_generation(tmp_path):
    plain = [_messages(_checker(tmp_path, g, chips=()), tmp_path) for g in (None, "v5e", "v7x")]
    assert len(plain[0]) == 1 and plain[0] == plain[1] == plain[2] and SEEN not in plain[0][0]


def test_the_clean_twin_stays_clean_for_every_generation(tmp_path):
    for generation in (None, "v5e", "v6e"):
        assert _messages(_checker(tmp_path, generation), tmp_path, OWN_SCRATCH) == []


def test_pyproject_setting():
    cfg = config_from_table({"tpu-generation": "v5e"}, Path("/p"), "/p/pyproject.toml")
    assert (cfg.tpu_generation, cfg.tpu_generation_from, cfg.problems) == ("v5e", "/p/pyproject.toml", ())
    bad = config_from_table({"tpu-generation": "v5"}, Path("/p"), "/p/pyproject.toml")
    assert bad.tpu_generation is None
    assert bad.problems == ("/p/pyproject.toml: `tpu-generation` must be one of v4, v5e, v5p, v6e, v7x, not 'v5'; "
                            "no generation is chosen",)
    assert config_from_table({"tpu-generation": 5}, Path("/p"), "/p/pyproject.toml").problems
    # The editor's settings lie under the file's: the file's generation wins when both say one.
    merged = cfg.merged(Config(tpu_generation="v6e", tpu_generation_from="tpuGeneration"))
    assert (merged.tpu_generation, merged.tpu_generation_from) == ("v5e", "/p/pyproject.toml")
    under = Config().merged(Config(tpu_generation="v6e", tpu_generation_from="tpuGeneration"))
    assert (under.tpu_generation, under.tpu_generation_from) == ("v6e", "tpuGeneration")


def test_server_setting():
    s, problems = parse_settings({"pallasLsp": {"tpuGeneration": "v5e"}})
    assert s.tpu_generation == "v5e" and problems == []
    s2, problems = parse_settings({"tpuGeneration": "tpu-v5e"}, s)
    assert s2.tpu_generation == "v5e"  # (a bad value is ignored: the earlier one stays)
    assert problems == ["pallas-lsp setting `tpuGeneration`: `tpu-generation` must be one of v4, v5e, v5p, v6e, "
                        "v7x, not 'tpu-v5e'; ignored"]
    s3, problems = parse_settings({"tpuGeneration": None}, s)
    assert s3.tpu_generation is None and problems == []


def _project(tmp_path, table: str = "") -> Path:
    (tmp_path / "team.json").write_text(json.dumps(_team_record([{"generation": "v5e", "releases": ["0.10.2"]}])))
    (tmp_path / "pyproject.toml").write_text(f'[tool.pallas-lsp]\nrecords = ["team.json"]\n{table}')
    (tmp_path / "kern.py").write_text(SHARED_SCRATCH)
    return tmp_path / "kern.py"


def _check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(pallas_cli() + ["check", "--no-cache", "--output-format", "json", *args],
                          capture_output=True, text=True, timeout=120)


def test_check_command_line_over_pyproject_and_json_shows_the_choice(tmp_path):
    kern = _project(tmp_path, 'tpu-generation = "v6e"\n')
    quiet = _check(str(kern))  # (the project targets a v6e, where nobody saw the kind)
    assert [f["code"] for f in json.loads(quiet.stdout)] == ["PAL203"]  # (a shipped kind, no chips)
    p = _check("--tpu-generation", "v5e", str(kern))
    found = [f for f in json.loads(p.stdout) if f["code"] == "PAL190"]
    assert p.returncode == 1 and len(found) == 1 and SEEN not in found[0]["message"]
    assert found[0]["tpu_generation"] == {"generation": "v5e", "source": "--tpu-generation"}


def test_check_refuses_an_unknown_generation(tmp_path):
    p = _check("--tpu-generation", "v9", str(_project(tmp_path)))
    assert p.returncode == 2 and "`tpu-generation` must be one of v4, v5e, v5p, v6e, v7x, not 'v9'" in p.stderr


def test_rules_show_the_chips_and_the_generation(tmp_path):
    _project(tmp_path, 'tpu-generation = "v5e"\n')
    p = subprocess.run(pallas_cli() + ["rules", "--format", "json", "--records", "team.json"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    rows = {r["code"]: r for r in json.loads(p.stdout)}
    assert rows["PAL190"]["chips"] == [{"generation": "v5e", "releases": ["0.10.2"]}]
    assert rows["PAL190"]["tpu_generation"]["generation"] == "v5e"
    assert rows["PAL001"]["chips"] == []
