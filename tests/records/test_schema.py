"""The detection schema's one registry (records/detection.py) and what is generated from it: the
reference in docs/data-rules.md and the record JSON Schema the package ships."""
import json

import pytest

from pallas_lsp.cli import main
from pallas_lsp.records import default_store
from pallas_lsp.records.detection import (CONDITION_TESTS, FIX_OP_REGISTRY, Condition, DetectionError,
                                          parse_detection)
from pallas_lsp.records.reference import BEGIN, END, reference_markdown, schema_text, shipped_schema_text, \
    with_reference
from tests.conftest import DATA, ROOT

jsonschema = pytest.importorskip("jsonschema")

DOCS = ROOT / "docs" / "data-rules.md"
SHIPPED = sorted((ROOT / "server" / "pallas_lsp" / "kinds").glob("*/record.json"))
USER_KINDS = sorted((DATA / "records" / "user_kind").glob("*.json"))
PL = "jax.experimental.pallas"


def _validator():
    schema = json.loads(shipped_schema_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _section(**overrides) -> dict:
    base = {"code": "TST101", "name": "team-schema-kind",
            "construct": {"call": f"{PL}.run_scoped",
                          "where": [{"argument": {"keyword": "collective_axes"}, "nonEmptyAxes": True}]},
            "modes": ["tpu-interpret"],
            "fixes": [{"title": "Drop it", "removeKeyword": "collective_axes"}]}
    return {**base, **overrides}


def _record(detection: dict) -> dict:
    return {"record": {"id": "x1", "slug": "team-schema-kind", "errorMessage": "it fails",
                       "messagePattern": "it fails", "errorClass": "NotImplementedError", "schemaVersion": 2,
                       "detection": detection}}


def test_the_reference_in_the_docs_is_generated_from_the_registry():
    page = DOCS.read_text(encoding="utf-8")
    assert page.count(BEGIN) == 1 and page.count(END) == 1
    assert page == with_reference(page), \
        "docs/data-rules.md is stale: run `pallas-lsp dev schema --docs docs/data-rules.md`"
    # The hand-written prose around it stays: the worked example and the record-field sections.
    assert "## A worked example" in page and "**`wordings`**" in page and "json.schemas" in page


def test_the_shipped_schema_is_generated_from_the_registry():
    assert shipped_schema_text() == schema_text(), \
        "record.schema.json is stale: run `pallas-lsp dev schema --json server/pallas_lsp/records/record.schema.json`"


def test_dev_schema_check_names_a_stale_file_and_rewrites_it(tmp_path, capsys):
    page = tmp_path / "page.md"
    page.write_text(f"# Title\n\nprose\n\n{BEGIN}\nold reference\n{END}\n\nmore prose\n")
    schema = tmp_path / "record.schema.json"
    assert main(["dev", "schema", "--check", "--docs", str(page), "--json", str(schema)]) == 1
    assert "old reference" in page.read_text() and not schema.exists()  # (--check writes nothing)
    assert main(["dev", "schema", "--docs", str(page), "--json", str(schema)]) == 0
    text = page.read_text()
    assert text.startswith("# Title\n\nprose\n\n") and text.endswith("\n\nmore prose\n")
    assert reference_markdown() in text and "old reference" not in text
    assert schema.read_text() == schema_text()
    assert main(["dev", "schema", "--check", "--docs", str(page), "--json", str(schema)]) == 0


@pytest.mark.parametrize("path", SHIPPED + USER_KINDS, ids=lambda p: p.name)
def test_every_shipped_record_file_validates_against_the_schema(path):
    errors = sorted(_validator().iter_errors(json.loads(path.read_text())), key=lambda e: list(e.absolute_path))
    assert not errors, f"{path.name}: {list(errors[0].absolute_path)}: {errors[0].message}"


@pytest.mark.parametrize("entry", [
    {"name": "an unknown test", "where": [{"argument": {"position": 0}, "nonEmpty": True}]},
    {"name": "two tests", "where": [{"argument": {"position": 0}, "present": True, "missing": True}]},
    {"name": "a flag test set false", "where": [{"argument": {"position": 0}, "transposed": False}]},
    {"name": "`where` beside a test that is not api", "where": [
        {"argument": {"position": 0}, "present": True, "where": []}]},
    {"name": "`rest` without contains", "where": [{"argument": {"rest": 1}, "present": True}]},
    {"name": "`rest` beside a keyword", "where": [{"argument": {"rest": 1, "keyword": "x"},
                                                   "contains": {"api": f"{PL}.x"}}]},
])
def test_the_schema_rejects_a_condition_the_loader_rejects(entry):
    detection = _section(construct={"call": f"{PL}.run_scoped", "where": entry["where"]})
    with pytest.raises(DetectionError):
        parse_detection(detection)
    assert not _validator().is_valid(_record(detection)), entry["name"]


@pytest.mark.parametrize("overrides", [
    {"modes": ["laptop"]},
    {"headline": "`{label}` fails in {mode}"},
    {"fixes": [{"title": "t", "rewrite": "x"}]},
    {"fixes": [{"title": "t", "removeKeyword": "a", "setKeyword": {"name": "b", "value": "1"}}]},
    {"fixes": [{"title": "t", "setKeyword": {"name": "b"}}]},
    {"fixes": [{"title": "t", "reduceInScratch": {"name": "{src}_acc"}}]},
    {"fixes": [{"title": "t", "makeGridStatic": False}]},
    {"underlined": "construct"},
    {"also": [{"code": "TST102"}]},
])
def test_the_schema_rejects_a_section_the_loader_rejects(overrides):
    detection = _section(**overrides)
    with pytest.raises(DetectionError):
        parse_detection(detection)
    assert not _validator().is_valid(_record(detection)), overrides


def test_a_section_using_every_test_and_op_loads_and_validates():
    """The clean twin: each registered test and op in its documented example is accepted by
    the loader and by the schema (bare, wrapped and in a list)."""
    where = [t.example for t in CONDITION_TESTS.values() if t.name not in ("wholeArray",)]
    launch_where = [CONDITION_TESTS["wholeArray"].example]
    fixes = [op.example for op in FIX_OP_REGISTRY.values()]
    detection = _section(
        construct={"call": f"{PL}.run_scoped", "where": where}, underline={"condition": len(where) - 1},
        fixes=fixes[:8],
        also=[{"code": "TST102", "name": "team-schema-kind-two", "fixes": fixes[8:]},
              {"code": "TST103", "name": "team-schema-kind-three",
               "construct": {"launch": f"{PL}.pallas_call", "where": launch_where}}])
    parsed = parse_detection(detection)
    used_tests = {c.test for d in (parsed,) + parsed.also for c in d.where}
    used_ops = {f.op for d in (parsed,) + parsed.also for f in d.fixes}
    assert used_tests == set(CONDITION_TESTS) and used_ops == set(FIX_OP_REGISTRY)
    validator = _validator()
    record = _record(detection)
    for shape in (record, record["record"], [record, record["record"]]):
        errors = list(validator.iter_errors(shape))
        assert not errors, f"{list(errors[0].absolute_path)}: {errors[0].message}"


def test_every_registered_test_and_op_is_documented():
    page = DOCS.read_text(encoding="utf-8")
    for kind, registry in (("test", CONDITION_TESTS), ("op", FIX_OP_REGISTRY)):
        for name, entry in registry.items():
            assert entry.doc.strip() and entry.example, f"the {kind} `{name}` has no doc or example"
            assert name in json.dumps(entry.example), f"the {kind} `{name}`'s example does not use it"
            assert entry.doc in page and f"\n#### `{name}`" in page, f"the {kind} `{name}` is not in the docs"


def _conditions(conditions: tuple[Condition, ...]):
    for c in conditions:
        yield c
        yield from _conditions(c.where)


def used_by_shipped_records() -> tuple[set[str], set[str]]:
    tests, ops = set(), set()
    for rec in default_store().records:
        if rec.detection is None:
            continue
        for d in (rec.detection,) + rec.detection.also:
            tests |= {c.test for c in _conditions(d.where + d.quiet_when_launch)}
            for f in d.fixes:
                ops.add(f.op)
                tests |= {c.test for c in _conditions(f.when)}
    return tests, ops


def undocumented(page: str) -> list[str]:
    """Tests and ops the shipped records use that the page has no entry for."""
    tests, ops = used_by_shipped_records()
    return sorted(name for name in tests | ops if f"\n#### `{name}`" not in page)


def test_the_docs_list_every_test_and_op_the_shipped_records_use():
    assert undocumented(DOCS.read_text(encoding="utf-8")) == []
    tests, ops = used_by_shipped_records()
    assert {"nonEmptyAxes", "anyLeaf", "wholeArray"} <= tests and {"addScratch", "replaceCall"} <= ops


def test_a_page_without_the_generated_section_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no generated section"):
        with_reference("# a page\n")
    assert undocumented("# a page\n")  # (the check above can fail)
