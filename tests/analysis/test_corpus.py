"""The shared corpus, labelled by running each program under JAX 0.12: the analyser must
report exactly the labelled construct for every failing case and nothing for clean ones."""
import filecmp
import json
import subprocess

import pytest

from pallas_lsp.rules import analyse
from tests.conftest import CORPUS, SHARED_CORPUS, pallas_cli

SEED = {
    "get-global-discharge-is-not-supported-in-interpret",
    "get-global-only-supports-semaphores-got-what",
    "inline-mgpu-p-does-not-support-discharge",
    "dynamic-grid-bounds-not-yet-supported-in-gpu-int",
}
LABELS = json.loads((CORPUS / "labels.json").read_text())
# Where JAX raises a more specific message than the seed record's for the same cause, the finding
# cites that message's record, which counts as the seed record's (as ../shared/corpus/score.py does).
EQUIV = {"gpu-interpret-inline-mgpu": "inline-mgpu-p-does-not-support-discharge",
         "gpu-interpret-inline-mgpu-bad-mode": "inline-mgpu-p-does-not-support-discharge",
         "gpu-interpret-inline-mgpu-return-value": "inline-mgpu-p-does-not-support-discharge"}


def seed_record(record):
    return EQUIV.get(record, record)


@pytest.mark.parametrize("name", sorted(LABELS))
def test_corpus_case(name):
    label = LABELS[name]
    result = analyse((CORPUS / name).read_text(), name)
    got = {(seed_record(f.record), f.span.line) for f in result.findings if seed_record(f.record) in SEED}
    want = {(label["feature"], label["line"])} if label.get("feature") else set()
    assert got == want, [f.message for f in result.findings]
    for decoy in label.get("decoy_lines", []):
        assert decoy not in {line for _, line in got}


@pytest.mark.parametrize("name", sorted(n for n, label in LABELS.items()
                                         if label.get("feature") and label.get("mode_line")))
def test_corpus_mode_line_is_related(name):
    """The line that decides the mode is among the finding's related locations."""
    label = LABELS[name]
    result = analyse((CORPUS / name).read_text(), name)
    (finding,) = [f for f in result.findings if seed_record(f.record) == label["feature"]]
    related_lines = {r.span.line for r in finding.related}
    assert label["mode_line"] in related_lines
    assert label["context_line"] in related_lines | {finding.launch_line}


def test_cli_json_scores_perfectly_on_corpus():
    files = [str(CORPUS / n) for n in sorted(LABELS)]
    proc = subprocess.run(pallas_cli() + ["check", "--output-format", "json", *files],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    findings = json.loads(proc.stdout)
    tp = fp = fn = 0
    for name, label in LABELS.items():
        want = {(label["feature"], label["line"])} if label.get("feature") else set()
        have = {(seed_record(f["record"]), f["line"]) for f in findings
                if f["path"].endswith("/" + name) and seed_record(f["record"]) in SEED}
        tp += len(want & have)
        fp += len(have - want)
        fn += len(want - have)
    assert (fp, fn) == (0, 0)
    assert tp == sum(1 for file_label in LABELS.values() if file_label.get("feature"))


@pytest.mark.skipif(not SHARED_CORPUS.exists(), reason="no ../shared/corpus beside this checkout")
def test_vendored_corpus_matches_shared():
    names = [p.name for p in CORPUS.iterdir()]
    match, mismatch, errors = filecmp.cmpfiles(CORPUS, SHARED_CORPUS, names, shallow=False)
    assert not mismatch and not errors, (mismatch, errors)
