#!/usr/bin/env python3
"""Score the analyser against what the shared corpora do under another jax release.

Usage:
    scripts/score_release.py --jax X [--corpus NAME ...] [--shared DIR] [--via-environment] [--json]

For each corpus with a label file `tests/data/releases/jax-X/<corpus>.json` (written by
`scripts/relabel_releases.py`, by running), the 0.12.0.1 labels of `<shared>/<corpus>/labels.json`
are turned into the expectations for release X:

* the case behaves under X as labelled: its label, unchanged;
* it runs clean under X, or stops before its construct (a public name or signature the release
  lacks): nothing is wanted;
* it raises something else under X (or raises where 0.12.0.1 runs clean): the record the tool's
  `explain` finds for the message X printed (its raise site for a bare error) is wanted at the
  label's line; when the tool has no record for that message the case counts neither way
  (corpus-prims' `neutral`), and it is listed as such.

The corpus's own `score.py` then scores `pallas-lsp check --jax-version X` (with the corpus's
usual options) against those expectations, in a scratch copy of the corpus: recall, precision,
each miss and false alarm, as that script prints them. With --via-environment the release is not
named on the command line: the scratch copy is a workspace whose `.venv` has jax X installed (its
`jax-X.dist-info/METADATA`), and `check` must choose X from it.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "server"))

from pallas_lsp.explain import explain_text  # noqa: E402
from pallas_lsp.lowering import PINNED_RELEASE  # noqa: E402
from pallas_lsp.records import RecordStore, default_store  # noqa: E402

LABELS = REPO / "tests" / "data" / "releases"
# The options each corpus is scored with (its README's command), before --jax-version.
CHECK_OPTIONS = {
    "corpus": [],
    "corpus-wave2": ["--backends", "cpu"],
    "corpus-prims": [],
    "corpus-structure": [],
}
STOPPED_EARLY = ("missing-api", "api-signature")
_RESULT = re.compile(r"^recall (?P<recall>[\d.]+) precision (?P<precision>[\d.]+) "
                     r"\(tp (?P<tp>\d+) fp (?P<fp>\d+) fn (?P<fn>\d+)\)")
_MISS = re.compile(r"^(?P<case>[\w.-]+\.py): want (?P<want>\[.*\]) got (?P<got>\[.*\])$")


@dataclasses.dataclass(frozen=True)
class Expectation:
    """What one case should get under the release, and why it differs from its 0.12.0.1 label."""

    label: dict[str, Any] | None  # the label score.py reads; None: the case counts neither way
    change: str  # "" when the 0.12.0.1 label stands


@dataclasses.dataclass
class CorpusScore:
    corpus: str
    release: str
    recall: float
    precision: float
    tp: int
    fp: int
    fn: int
    misses: list[str]  # score.py's "case: want [...] got [...]" lines
    changed: dict[str, str]  # case -> how its expectation differs from the 0.12.0.1 label
    passed: bool

    def as_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def observed_text(observed: dict[str, Any]) -> str:
    """The release's error as `explain` reads it: the message line, and for a bare error the
    frame that raised it (a one-frame traceback)."""
    error_class = observed.get("error_class") or "Exception"
    message = observed.get("message") or ""
    text = f"{error_class}: {message}" if message else error_class
    site = observed.get("raise_site") or ""
    parts = site.rsplit(":", 2)
    if not message and len(parts) == 3:
        path, line, function = parts
        # (the runners write the frame relative to site-packages/jax/ or to site-packages/; the
        # records' raise sites are jax/...)
        path = path if path.startswith("jax/") else f"jax/{path}"
        text = (f'Traceback (most recent call last):\n  File "/site-packages/{path}", line {line}, '
                f"in {function}\n{text}")
    return text


def record_for(observed: dict[str, Any], store: RecordStore, prefer: str | None) -> str | None:
    """The slug of the tool's record for what the release raised (the label's own feature when it
    is among the matches), or None when no record matches."""
    slugs = [e.record.slug for e in explain_text(observed_text(observed), store)]
    if prefer in slugs:
        return prefer
    return slugs[0] if slugs else None


def expectation(label: dict[str, Any], observed: dict[str, Any], store: RecordStore) -> Expectation:
    if observed.get("agrees"):
        return Expectation(label, "")
    category = observed.get("category") or ""
    quiet = {**label, "feature": None, "neutral": False}
    if category in STOPPED_EARLY:
        why = observed.get("missing_api") or observed.get("message")
        return Expectation(quiet, f"{category} ({why}): want nothing")
    if observed.get("outcome") == "clean":
        return Expectation(quiet, f"{category}: clean under the release, want nothing")
    if observed.get("outcome") != "raises":
        return Expectation(None, f"{category}: no result under the release, counts neither way")
    record = record_for(observed, store, label.get("feature"))
    if record is None:
        return Expectation(None, f"{category}: raises {observed.get('error_class')} "
                                 f"{(observed.get('message') or '')[:90]!r}, no record of the tool's: "
                                 "counts neither way")
    if not label.get("line"):
        return Expectation(None, f"{category}: raises {record}, but the label has no line: counts neither way")
    wanted = {**label, "feature": record, "neutral": False}
    return Expectation(wanted, f"{category}: want {record} (the release's message)")


def release_labels(corpus: str, release: str, shared: Path, store: RecordStore
                   ) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """(labels.json for the release, case -> how its expectation changed)."""
    labels = json.loads((shared / corpus / "labels.json").read_text())
    if release == PINNED_RELEASE:  # (what the shared labels were made with)
        return labels, {}
    observed = json.loads((LABELS / f"jax-{release}" / f"{corpus}.json").read_text())["cases"]
    out: dict[str, dict[str, Any]] = {}
    changed: dict[str, str] = {}
    for case, label in sorted(labels.items()):
        if case not in observed:
            raise SystemExit(f"{corpus}/{case}: no observation under jax {release}; rerun "
                             f"scripts/relabel_releases.py --jax {release} --corpus {corpus}")
        exp = expectation(label, observed[case], store)
        if exp.label is not None:
            out[case] = exp.label
        if exp.change:
            changed[case] = exp.change
    return out, changed


def check_command(corpus: str, release: str, via_environment: bool) -> str:
    exe = REPO / ".venv" / "bin" / "pallas-lsp"
    chosen = [] if via_environment else ["--jax-version", release]
    return " ".join([str(exe), "check", "--no-cache", *CHECK_OPTIONS[corpus], *chosen])


def install_fake_jax(workspace: Path, release: str) -> None:
    """Make ``workspace`` a project whose .venv has jax ``release`` installed, as far as the
    release choice can see (it reads the distribution's metadata, never imports it)."""
    (workspace / "pyproject.toml").write_text("[tool.pallas-lsp]\n")
    venv = workspace / ".venv"
    (venv / "pyvenv.cfg").parent.mkdir(parents=True, exist_ok=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    meta = venv / "lib" / "python3.12" / "site-packages" / f"jax-{release}.dist-info" / "METADATA"
    meta.parent.mkdir(parents=True)
    meta.write_text(f"Metadata-Version: 2.1\nName: jax\nVersion: {release}\n")


def score_corpus(corpus: str, release: str, shared: Path, store: RecordStore,
                 via_environment: bool = False) -> CorpusScore:
    labels, changed = release_labels(corpus, release, shared, store)
    with tempfile.TemporaryDirectory(prefix=f"score-{release}-{corpus}-") as tmp:
        scratch = Path(tmp)
        if via_environment:
            install_fake_jax(scratch, release)
        for case in labels:
            shutil.copy2(shared / corpus / case, scratch / case)
        (scratch / "labels.json").write_text(json.dumps(labels, indent=1, sort_keys=True))
        proc = subprocess.run([sys.executable, str(shared / corpus / "score.py"),
                               check_command(corpus, release, via_environment), str(scratch)],
                              capture_output=True, text=True, timeout=1200)
    lines = proc.stdout.splitlines()
    result = next((m for m in map(_RESULT.match, lines) if m), None)
    if result is None:
        raise SystemExit(f"{corpus}: score.py printed no result:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return CorpusScore(corpus, release, float(result["recall"]), float(result["precision"]),
                       int(result["tp"]), int(result["fp"]), int(result["fn"]),
                       [ln for ln in lines if _MISS.match(ln)], changed, proc.returncode == 0)


def corpora_for(release: str, wanted: list[str] | None, shared: Path) -> list[str]:
    if release == PINNED_RELEASE:
        return [n for n in wanted or CHECK_OPTIONS if (shared / n / "labels.json").is_file()]
    have = sorted(p.stem for p in (LABELS / f"jax-{release}").glob("*.json"))
    names = wanted or have
    missing = [n for n in names if n not in have]
    if missing:
        raise SystemExit(f"no labels under jax {release} for {', '.join(missing)} "
                         f"(have: {', '.join(have) or 'none'})")
    return [n for n in names if (shared / n / "labels.json").is_file()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jax", required=True, help="the release whose labels to score, e.g. 0.10.2")
    parser.add_argument("--corpus", action="append", help="a corpus name (default: every one labelled)")
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared",
                        help="the folder holding the shared corpora (default: ../shared)")
    parser.add_argument("--via-environment", action="store_true",
                        help="name no release: score in a workspace whose .venv has jax X installed")
    parser.add_argument("--json", action="store_true", help="print the scores as JSON")
    args = parser.parse_args(argv)
    store = default_store()
    scores = [score_corpus(c, args.jax, args.shared, store, args.via_environment)
              for c in corpora_for(args.jax, args.corpus, args.shared)]
    if args.json:
        print(json.dumps([s.as_json() for s in scores], indent=1))
    else:
        for s in scores:
            print(f"== jax {s.release} {s.corpus}: recall {s.recall:.2f} precision {s.precision:.2f} "
                  f"(tp {s.tp} fp {s.fp} fn {s.fn}); {len(s.changed)} expectations differ from 0.12.0.1")
            for case, why in sorted(s.changed.items()):
                print(f"   {case}: {why}")
            for miss in s.misses:
                print(f"   MISS {miss}")
    return 0 if all(s.passed for s in scores) else 1


if __name__ == "__main__":
    sys.exit(main())
