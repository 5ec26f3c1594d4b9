"""A record's ``wordings`` (the messages JAX releases printed for it) and ``raisedAt`` (where JAX
raises it with no message): loading, refusing bad entries one at a time, and the shipped data."""
import json
import re
import subprocess
from pathlib import Path

import pytest

from pallas_lsp.records import RecordStore, builtin_records, parse_records_text
from pallas_lsp.records.patterns import check_pattern

MIRROR = Path("/work/.mirror/jax-ml+jax/repo")
ORACLE_JAX = Path(__file__).resolve().parents[2] / ".oracle-env" / "lib" / "python3.12" / "site-packages"


def _record(**extra):
    return {"id": "team-bare", "slug": "team-bare", "errorMessage": "scale: raise NotImplementedError",
            "messagePattern": "scale: raise NotImplementedError", "errorClass": "NotImplementedError", **extra}


def test_a_users_record_matches_by_raise_site_and_by_wording():
    rec = _record(raisedAt=[{"file": "jax/_src/pallas/quant.py", "function": "scale", "releases": ["0.9.0"]}],
                  wordings=[{"message": "no scale for <dtype>", "pattern": r"no scale for \w+",
                             "releases": ["0.8.0", "0.8.1"]}])
    records, problems = parse_records_text(json.dumps(rec), "team.json")
    assert problems == [] and records[0].raised_at[0].function == "scale"
    store = RecordStore(records)
    bare = '  File "/x/site-packages/jax/_src/pallas/quant.py", line 7, in scale\nNotImplementedError'
    assert [r.slug for r, _ in store.match(bare)] == ["team-bare"]
    assert [r.slug for r, _ in store.match("ValueError: no scale for int4")] == ["team-bare"]
    assert store.match("NotImplementedError") == []


@pytest.mark.parametrize("field, entry, where", [
    ("wordings", {"message": "m", "pattern": "(unclosed", "releases": ["0.8.0"]}, "wordings[0].pattern"),
    ("wordings", {"message": "m", "pattern": "m", "releases": []}, "wordings[0].releases"),
    ("wordings", {"message": "m", "pattern": "m", "releases": ["latest"]}, "wordings[0].releases"),
    ("wordings", {"pattern": "m", "releases": ["0.8.0"]}, "wordings[0].message"),
    ("wordings", "m", "wordings[0]"),
    ("raisedAt", {"file": "/abs/pallas_call.py", "function": "f", "releases": ["0.8.0"]}, "raisedAt[0].file"),
    ("raisedAt", {"file": "jax/_src/a.py", "function": "not a name", "releases": ["0.8.0"]}, "raisedAt[0].function"),
    ("raisedAt", {"file": "jax/_src/a.py", "function": "f"}, "raisedAt[0].releases"),
])
def test_a_bad_entry_loses_only_itself(field, entry, where):
    good = {"wordings": {"message": "m2", "pattern": "m2", "releases": ["0.8.0"]},
            "raisedAt": {"file": "jax/_src/a.py", "function": "g", "releases": ["0.8.0"]}}[field]
    records, problems = parse_records_text(json.dumps(_record(**{field: [entry, good]})), "team.json")
    assert len(records) == 1 and len(problems) == 1, problems
    assert problems[0].where == f"record.{where}" and "loads without this" in problems[0].message
    kept = records[0].wordings if field == "wordings" else records[0].raised_at
    assert len(kept) == 1


def _fill(message: str) -> str:
    # interpolated parts as JAX fills them: a primitive, a core type, the semantics enums
    filled = message.replace("KernelType.<core>", "KernelType.TC").replace("CoreType.<core>", "CoreType.TC")
    filled = filled.replace("<core>", "tc").replace("<primitive>", "cumsum")
    filled = re.sub(r"<[a-z ]+ semantics>", "LoweringSemantics.Warpgroup", filled)
    filled = re.sub(r"<([a-z]+)(\|[a-z]+)+>", r"\1", filled)  # (<signal|wait>: one of the words)
    filled = filled.replace("<shape>", "(2,)")
    return re.sub(r"<[a-z_]+>", "int32", filled)  # (any other part: a dtype, as most are)


def test_shipped_wordings_match_their_own_message_and_no_other_records():
    records, problems = builtin_records()
    assert problems == []
    store = RecordStore(list(records))
    with_wordings = [r for r in records if r.wordings]
    assert {r.slug for r in with_wordings} >= {"tpu-lower-unimplemented-primitive",
                                                "mgpu-lower-unimplemented-primitive",
                                                "triton-lower-unimplemented-primitive"}
    for rec in with_wordings:
        for w in rec.wordings:
            assert check_pattern(w.pattern.pattern)[1] is None, (rec.slug, w.pattern.pattern)
            versions = [tuple(map(int, r.split("."))) for r in w.releases]
            assert versions == sorted(set(versions)), (rec.slug, w.releases)
            text = f"{rec.error_class}: {_fill(w.message)}"
            assert w.pattern.search(text), (rec.slug, text)
            assert [r.slug for r, _ in store.match(text)] == [rec.slug], text


def _source(release: str, file: str) -> str | None:
    """jax's file at that release: the bare mirror's tag, or the oracle's installed jax 0.12.0.1."""
    if release == "0.12.0.1" and (ORACLE_JAX / file).is_file():
        return (ORACLE_JAX / file).read_text()
    # A release the mirror has no tag for (0.11.2): its installed wheel (scripts/oracle-env --jax X).
    for installed in sorted(ORACLE_JAX.parents[3].glob(f".oracle-env-{release}/lib/python3.*/site-packages")):
        if (installed / file).is_file():
            return (installed / file).read_text()
    got = subprocess.run(["git", "-C", str(MIRROR), "show", f"jax-v{release}:{file}"], capture_output=True, text=True)
    return got.stdout if got.returncode == 0 else None


@pytest.mark.skipif(not MIRROR.is_dir(), reason="jax's source mirror is not on this machine")
def test_shipped_raise_sites_are_bare_raises_in_each_release_listed():
    records, _ = builtin_records()
    sites = [(rec, s) for rec in records for s in rec.raised_at]
    assert {rec.slug for rec, _ in sites} == {"pallas-call-jvp-scalar-prefetch",
                                              "gpu-interpret-blockspec-not-whole-array",
                                              "mgpu-lower-pallas-call-compiler-params",
                                              "compiler-params-wrong-backend",
                                              "program-id-outside-kernel", "tpu-dot-1d"}
    unreadable = []
    for rec, site in sites:
        bare = "raise NotImplementedError" if rec.error_class == "NotImplementedError" else "assert "
        readable = [(release, _source(release, site.file)) for release in site.releases]
        # A release with neither a mirror tag nor an installed wheel here (0.11.2 on a clean clone
        # without scripts/oracle-env --jax 0.11.2) cannot be read; every site must still be read in
        # at least one release it lists, and a release the mirror has a tag for must be readable
        # (else the file named is wrong).
        unreadable += [(rec.slug, release) for release, source in readable if source is None]
        assert any(source is not None for _, source in readable), (rec.slug, site.releases)
        for release, source in readable:
            if source is None:
                continue
            body = _function_body(source, site.function)
            assert body is not None, (rec.slug, release, site.function)
            assert re.search(rf"^\s*{re.escape(bare)}(?:$|\S)", body, re.M), (rec.slug, release)
    tags = subprocess.run(["git", "-C", str(MIRROR), "tag"], capture_output=True, text=True).stdout.split()
    assert not [(slug, r) for slug, r in unreadable if f"jax-v{r}" in tags], unreadable


def _function_body(source: str, function: str) -> str | None:
    """The lines of ``def function`` (nested ones too): up to the next line indented no deeper
    than the def that is not the signature's closing bracket."""
    lines = source.splitlines()
    for i, line in enumerate(lines):
        if re.match(rf"\s*def {function}\(", line):
            indent = len(line) - len(line.lstrip())
            end = i + 1
            while end < len(lines):
                nxt = lines[end]
                if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent and not nxt.lstrip().startswith(")"):
                    break
                end += 1
            return "\n".join(lines[i:end])
    return None
