import json
from pathlib import Path

from pallas_lsp.kinds import KINDS_DIR, folder_name
from pallas_lsp.records import builtin_records, default_store, load_records_file, parse_records_text
from tests.conftest import ROOT


def shipped_record(slug: str) -> Path:
    return KINDS_DIR / folder_name(slug) / "record.json"


def test_seed_records_ship_unchanged():
    shared = ROOT.parent / "shared" / "records"
    if not shared.exists():
        return
    for p in shared.glob("*.json"):
        assert shipped_record(p.stem).read_bytes() == p.read_bytes()


def test_builtin_records_load_and_index():
    records, problems = builtin_records()
    assert problems == []
    assert len(records) == len(list(KINDS_DIR.glob("*/record.json")))  # every kind folder's record
    seeds = {"get-global-discharge-is-not-supported-in-interpret", "get-global-only-supports-semaphores-got-what",
             "inline-mgpu-p-does-not-support-discharge", "dynamic-grid-bounds-not-yet-supported-in-gpu-int"}
    assert seeds <= {r.slug for r in records}
    store = default_store()
    rec = store.by_slug("get-global-only-supports-semaphores-got-what")
    assert rec is not None and store.by_id(rec.id) is rec
    assert rec.message_pattern.search("get_global only supports semaphores, got Ref<smem>{float32[128]}")


def test_bad_file_names_file_and_field_and_keeps_valid_records(tmp_path):
    good = json.loads(shipped_record("get-global-only-supports-semaphores-got-what").read_text())
    bad1 = {"record": dict(good["record"], slug="bad-one", messagePattern="(unclosed")}
    bad2 = {"record": dict(good["record"], slug="bad-two", solutions="not a list")}
    missing = {"record": {k: v for k, v in good["record"].items() if k != "errorClass"}}
    p = tmp_path / "mine.json"
    ok = {"record": dict(good["record"], slug="my-own", id="abc")}
    p.write_text(json.dumps([ok, bad1, bad2, missing]))
    records, problems = load_records_file(p)
    assert [r.slug for r in records] == ["my-own"]
    texts = [str(x) for x in problems]
    assert any(str(p) in t and "record[1].record.messagePattern" in t and "invalid regular expression" in t
               for t in texts), texts
    assert any("record[2].record.solutions" in t for t in texts), texts
    assert any("record[3].record.errorClass" in t and "missing" in t for t in texts), texts


def test_not_json_and_wrong_shapes(tmp_path):
    p = tmp_path / "broken.json"
    p.write_text("{not json")
    records, problems = load_records_file(p)
    assert records == [] and "not valid JSON" in str(problems[0]) and str(p) in str(problems[0])
    records, problems = parse_records_text("42", "x.json")
    assert records == [] and "expected an object" in str(problems[0])
    records, problems = parse_records_text("[" * 100000 + "]" * 100000, "deep.json")
    assert records == [] and problems


def test_catastrophic_pattern_is_rejected():
    rec = {"id": "x", "slug": "x", "errorMessage": "m", "messagePattern": "(a+)+$", "errorClass": "E"}
    records, problems = parse_records_text(json.dumps(rec), "x.json")
    assert records == [] and "catastrophically" in str(problems[0])


def test_bare_record_and_user_override(tmp_path):
    store = default_store()
    rec = {"id": "u1", "slug": "my-error", "errorMessage": "boom", "messagePattern": r"boom \d+",
           "errorClass": "RuntimeError", "solutions": ["do less"]}
    p = tmp_path / "one.json"
    p.write_text(json.dumps(rec))
    assert store.add_path(p) == []
    assert store.by_slug("my-error").solutions == ("do less",)
    hits = store.match("Traceback...\nRuntimeError: boom 42\n")
    assert [r.slug for r, _ in hits] == ["my-error"]
