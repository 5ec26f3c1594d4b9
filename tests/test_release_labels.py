"""The per-release labels of the shared corpora (tests/data/releases/jax-X/<corpus>.json).

They are produced by scripts/relabel_releases.py running every case under release X (see
docs/releases.md); these checks need no jax: each file is well-formed and in the script's own
deterministic layout, names the release of its folder, and covers every case of its shared corpus
when that corpus is present here.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
RELEASES = ROOT / "tests" / "data" / "releases"
SHARED = ROOT.parent / "shared"
# Issue 43: the last 0.11 and 0.10.2 over every corpus (the pin's own run is its labels).
REQUIRED = {
    "0.11.2": ("corpus", "corpus-wave2", "corpus-prims", "corpus-structure"),
    "0.10.2": ("corpus", "corpus-wave2", "corpus-prims", "corpus-structure"),
}
HEADER_FIELDS = {"schema", "release", "jax", "jaxlib", "python", "platform", "corpus",
                 "labels_from", "date", "command", "summary"}
CASE_FIELDS = {"outcome", "error_class", "message", "raise_site", "callback_error", "feature",
               "agrees", "category", "why", "missing_api", "record"}
OUTCOMES = {"clean", "raises", "timeout", "crashed", "probe-failed", "no-OK"}


def _relabel_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("relabel_releases",
                                                  ROOT / "scripts" / "relabel_releases.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


RELABEL = _relabel_script()
LABEL_FILES = sorted(RELEASES.glob("jax-*/*.json"))


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def test_the_required_releases_and_corpora_are_there() -> None:
    for release, corpora in REQUIRED.items():
        for corpus in corpora:
            assert (RELEASES / f"jax-{release}" / f"{corpus}.json").is_file(), (release, corpus)


@pytest.mark.parametrize("path", LABEL_FILES, ids=_id)
def test_label_file_is_well_formed(path: Path) -> None:
    text = path.read_text()
    data = json.loads(text)
    # The script's own layout, so that a rerun diffs cleanly.
    assert text == json.dumps(data, indent=1, sort_keys=True) + "\n"
    assert set(data) == {"header", "cases"}
    header, cases = data["header"], data["cases"]
    assert set(header) == HEADER_FIELDS
    release = path.parent.name.removeprefix("jax-")
    assert header["release"] == release and header["jax"] == release
    assert header["corpus"] == path.stem
    assert header["command"] == f"scripts/relabel_releases.py --jax {release} --corpus {path.stem}"
    assert header["labels_from"] == RELABEL.PINNED_JAX
    assert header["python"].startswith("3.")
    assert cases, "no cases"
    for name, case in cases.items():
        assert name.endswith(".py"), name
        assert set(case) == CASE_FIELDS, name
        assert case["outcome"] in OUTCOMES, name
        if case["outcome"] == "raises":
            assert isinstance(case["error_class"], str), name
            assert isinstance(case["message"], str), name
        else:
            assert case["error_class"] is None, name
        if case["agrees"] is True:
            assert case["category"] is None and case["why"] == [], name
        else:
            assert case["agrees"] is False, name
            assert case["category"] and case["why"], name
        if case["missing_api"] is not None:
            assert case["category"] == "missing-api", name
            assert case["missing_api"].startswith("jax"), name


@pytest.mark.parametrize("path", LABEL_FILES, ids=_id)
def test_summary_counts_the_cases(path: Path) -> None:
    data = _load(path)
    assert data["header"]["summary"] == RELABEL.summary(data["cases"])


@pytest.mark.parametrize("path", LABEL_FILES, ids=_id)
def test_label_file_covers_every_case_of_its_corpus(path: Path) -> None:
    corpus_name = path.stem
    corpora = RELABEL.shared_corpora(SHARED)
    if corpus_name not in corpora:
        pytest.skip(f"../shared/{corpus_name} is not in this checkout: nothing to compare with")
    corpus = corpora[corpus_name]
    cases = _load(path)["cases"]
    assert sorted(cases) == corpus.cases()
    labels = corpus.labels()
    for name, case in cases.items():
        assert case["feature"] == labels[name].get("feature"), name


@pytest.mark.parametrize("path", LABEL_FILES, ids=_id)
def test_agreement_is_what_the_script_decides_today(path: Path) -> None:
    # After a change to how agreement is decided: `scripts/relabel_releases.py --jax X --rejudge`.
    corpora = RELABEL.shared_corpora(SHARED)
    if path.stem not in corpora:
        pytest.skip(f"../shared/{path.stem} is not in this checkout: no labels to judge against")
    cases = _load(path)["cases"]
    assert RELABEL.judged_entries(corpora[path.stem], cases) == cases


@pytest.mark.parametrize("path", sorted(RELEASES.glob(f"jax-{RELABEL.PINNED_JAX}/*.json")), ids=_id)
def test_the_pinned_release_behaves_as_labelled(path: Path) -> None:
    # The labels were made on the pin: a disagreement there is a fault of the relabelling.
    disagree = {n: c["why"] for n, c in _load(path)["cases"].items() if not c["agrees"]}
    assert disagree == {}


def test_every_relabelled_release_has_release_facts() -> None:
    facts = ROOT / "server" / "pallas_lsp" / "records" / "releases"
    for folder in RELEASES.glob("jax-*"):
        assert (facts / folder.name / "release.json").is_file(), folder.name


def test_judge_tells_a_missing_api_from_a_changed_message(tmp_path: Path) -> None:
    label = {"outcome": "raises", "error_class": "ValueError", "message": "boom at 0x7f00",
             "raise_site": "_src/pallas/core.py:10:f"}
    same = {"outcome": "raises", "error_class": "ValueError", "message": "boom at 0x5a5a",
            "raise_site": "_src/pallas/core.py:99:f"}
    assert RELABEL.judge(label, same, tmp_path) == (True, None, [], None)
    missing = {"outcome": "raises", "error_class": "AttributeError",
               "message": "module 'jax.experimental.pallas.mosaic_gpu' has no attribute "
                          "'InterpretGPUParams'", "raise_site": None}
    agrees, category, why, absent = RELABEL.judge(label, missing, tmp_path)
    assert (agrees, category, absent) == (
        False, "missing-api", "jax.experimental.pallas.mosaic_gpu.InterpretGPUParams")
    other = dict(same, message="another message")
    agrees, category, why, absent = RELABEL.judge(label, other, tmp_path)
    assert (agrees, category, absent) == (False, "other-error", None)
    assert why == ["message: labelled 'boom at 0x?', got 'another message'"]
    bare = {"outcome": "raises", "error_class": "AssertionError", "message": "",
            "raise_site": "_src/pallas/pallas_call.py:5:g"}
    elsewhere = dict(bare, raise_site="_src/pallas/core.py:5:g")
    assert RELABEL.judge(bare, elsewhere, tmp_path)[0] is False
    assert RELABEL.judge(bare, dict(bare, raise_site="jax/_src/pallas/pallas_call.py:9:h"),
                         tmp_path)[0] is True
    assert RELABEL.judge({"outcome": "clean"}, {"outcome": "clean"}, tmp_path)[0] is True
    assert RELABEL.judge({"outcome": "clean"}, same, tmp_path)[1] == "raises-now"


def test_judge_accepts_the_same_record_with_another_detail(tmp_path: Path) -> None:
    # A record that matches by prefix: the detail after it may change between releases.
    label = {"outcome": "raises", "error_class": "NotImplementedError", "record": "only-semaphores",
             "message": "get_global only supports semaphores, got Ref<smem>{barrier[]}"}
    detail = dict(label, message="get_global only supports semaphores, got Ref<smem>{barrier[1]}")
    assert RELABEL.judge(label, detail, tmp_path)[0] is True
    assert RELABEL.judge(label, dict(detail, record=None), tmp_path)[1] == "other-error"
    assert RELABEL.judge(dict(label, record=None), dict(detail, record=None), tmp_path)[0] is False


def test_judge_tells_a_changed_public_signature_from_an_internal_error(tmp_path: Path) -> None:
    label = {"outcome": "raises", "error_class": "ValueError", "message": "needs a barrier"}
    public = {"outcome": "raises", "error_class": "TypeError", "raise_site": "_src/pallas/core.py:3:f",
              "message": "copy_gmem_to_smem() missing 1 required positional argument: 'barrier'"}
    assert RELABEL.judge(label, public, tmp_path)[1] == "api-signature"
    internal = dict(public, message="_pallas_call_jvp_rule() got an unexpected keyword argument 'k'")
    assert RELABEL.judge(label, internal, tmp_path)[1] == "other-error"
