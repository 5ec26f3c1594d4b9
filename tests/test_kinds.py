"""One folder per error kind (server/pallas_lsp/kinds/<slug>/): discovered, not listed; codes
from the one table of ranges; `pallas-lsp dev new-kind` makes a kind whose examples pass the
generated example tests untouched."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pallas_lsp.kinds import KINDS_DIR, folder_name, scan
from pallas_lsp.kinds.ranges import KIND_FAMILIES, family_named, family_of, next_free
from pallas_lsp.kinds.scaffold import taken_codes
from pallas_lsp.kinds.scaffold import PLACEHOLDER, ScaffoldError, choose_code, new_kind
from pallas_lsp.records import builtin_records, read_kind_records
from pallas_lsp.rules import default_rule_set, rule_classes, rule_kind_problems
from tests.conftest import ROOT

LAYOUT = scan()


def test_the_kind_folders_are_well_formed_and_every_rule_loads():
    assert [str(p) for p in LAYOUT.problems] == []
    assert rule_kind_problems() == []
    assert builtin_records()[1] == []


def test_each_folder_is_its_records_slug_and_holds_the_examples_of_the_codes_it_declares():
    rules = list(default_rule_set())
    by_record: dict[str, set[str]] = {}
    for rule in rules:
        by_record.setdefault(rule.record, set()).add(rule.code)
    for kind in LAYOUT.kinds:
        rec = json.loads(kind.record_path.read_text())["record"]
        assert folder_name(rec["slug"]) == kind.path.name
        assert set(kind.example_dirs()) == by_record.get(rec["slug"], set()), kind.path.name
    python = {cls.record for cls in rule_classes()}
    assert python == {k.slug for k in LAYOUT.kinds if k.rule_module is not None}


def test_every_code_sits_in_its_familys_range_once():
    codes = [r.code for r in default_rule_set()]
    assert len(codes) == len(set(codes))
    for code in codes:
        family = family_of(code)
        assert family is not None and family.name != "tool", code
    spans = sorted((f.first, f.last) for f in KIND_FAMILIES)
    assert all(a[1] < b[0] for a, b in zip(spans, spans[1:]))  # the ranges do not overlap


def test_no_shipped_record_or_example_holds_the_scaffolds_placeholder():
    for path in KINDS_DIR.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".py") and path.parent != KINDS_DIR \
                and "__pycache__" not in path.parts:
            assert PLACEHOLDER not in path.read_text(), path


def test_a_malformed_folder_is_reported_and_the_rest_load(tmp_path):
    good = new_kind("PAL650", "good-kind", root=tmp_path)
    (tmp_path / "Bad-Name").mkdir()
    (tmp_path / "no_record").mkdir()
    (good.folder / "notes.txt").write_text("stray")
    (tmp_path / "wrong_slug").mkdir()
    (tmp_path / "wrong_slug" / "record.json").write_text(good.folder.joinpath("record.json").read_text())
    problems = [str(p) for p in scan(tmp_path).problems]
    assert any("Bad-Name" in p and "slug" in p for p in problems)
    assert any("no_record" in p and "record.json" in p for p in problems)
    assert any("notes.txt" in p and "not part of a kind" in p for p in problems)
    records, record_problems = read_kind_records(tmp_path)
    assert [r.slug for r in records] == ["good-kind"]
    messages = [p.message for p in record_problems]
    assert any("whose slug is the folder's (`wrong-slug`)" in m for m in messages)
    assert any(PLACEHOLDER in m and "good-kind" in m for m in messages)  # refused as shipped


def test_codes_are_chosen_from_the_ranges():
    taken = {"PAL600", "PAL601"}
    assert choose_code("next:launch-structure", None, taken) == "PAL602"
    assert choose_code("next", "memory", set()) == "PAL800"
    assert choose_code("PAL705", "tpu-chip", taken) == "PAL705"
    for asked, family, words in [("PAL601", None, "taken"), ("PAL705", "memory", "not memory"),
                                 ("PAL901", None, "no kind family"), ("next:tool", None, "name a kind family"),
                                 ("PAL12", None, "not a code")]:
        with pytest.raises(ScaffoldError, match=words):
            choose_code(asked, family, taken)
    full = family_named("seed")
    assert next_free(full, {f"PAL{n:03d}" for n in range(1, 100)}) is None


def _env(package_root: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = f"{package_root}{os.pathsep}{ROOT}"
    return env


@pytest.mark.slow
def test_new_kind_makes_kinds_whose_examples_pass_the_generated_tests(tmp_path):
    server = tmp_path / "server"
    shutil.copytree(ROOT / "server" / "pallas_lsp", server / "pallas_lsp",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = _env(server)
    cli = [sys.executable, "-m", "pallas_lsp.cli", "dev", "new-kind"]
    data = subprocess.run([*cli, "next:launch-structure", "--slug", "scaffolded-data-kind"],
                          env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert data.returncode == 0, data.stderr
    python = subprocess.run([*cli, "next:tpu-chip", "--slug", "scaffolded-python-kind", "--python"],
                            env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert python.returncode == 0, python.stderr
    # next:<family> takes the family's first free code: PAL600 is still free among the structure
    # kinds; the chip family's first free code is whatever follows its shipped kinds.
    first_free_chip = next_free(family_named("tpu-chip"), taken_codes(ROOT / "server/pallas_lsp/kinds"))
    assert data.stdout.startswith("PAL600 ") and python.stdout.startswith(f"{first_free_chip} ")
    taken = subprocess.run([*cli, "PAL600", "--slug", "another-kind"], env=env, capture_output=True, text=True,
                           timeout=120, cwd=tmp_path)
    assert taken.returncode == 2 and "PAL600 is taken" in taken.stderr
    assert (server / "pallas_lsp/kinds/scaffolded_python_kind/rule.py").is_file()
    # The generated example tests, untouched, against the copy: both new kinds are flagged on
    # their invalid example's line and quiet on the valid one.
    selected = f"PAL600 or {first_free_chip} or well_formed or every_rule or unique"
    run = subprocess.run([sys.executable, "-m", "pytest", str(ROOT / "tests/rules/test_examples.py"), "-q", "-n", "0",
                          "-p", "no:cacheprovider", "-k", selected,
                          "--rootdir", str(ROOT)], env=env, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stdout[-3000:]
    assert "7 passed" in run.stdout  # (2 invalid, 2 valid, 3 over all rules), run.stdout[-1000:]
    # ... and the copy is not shippable until the placeholders are replaced.
    check = subprocess.run([sys.executable, "-c", "from pallas_lsp.records import builtin_records\n"
                            "print(*[p.message for p in builtin_records()[1]], sep='\\n')"],
                           env=env, capture_output=True, text=True, timeout=120)
    assert check.stdout.count(PLACEHOLDER) == 2, check.stdout


@pytest.mark.parametrize("first", ["pallas_lsp.kinds.get_global_discharge_is_not_supported_in_interpret.rule",
                                   "pallas_lsp.rules.base", "pallas_lsp.rules.examples", "pallas_lsp.records",
                                   "pallas_lsp.kinds"])
def test_any_module_imports_first(first):
    program = (f"import importlib\nimportlib.import_module({first!r})\n"
               "from pallas_lsp.rules import RULE_CLASSES\nassert len(RULE_CLASSES) >= 10, RULE_CLASSES\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
