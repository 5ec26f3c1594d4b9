#!/usr/bin/env python3
"""Which jax releases print each record's message, from the runs of its examples (issue 43).

scripts/collect_release_messages.py runs every rule's invalid example under a release and keeps
what it raised (tests/data/releases/messages/jax-X.json). A release *prints* a record's message
when one of the record's own examples raised there a message (or carried one out of a host
callback) that the record's pattern, or one wording's, matches. This script reads those runs and,
for each record:

* a wording whose pattern such a message matches gets that release in its `releases` (a release
  is never taken out: one a wording names from the release's source, with no example run that
  shows it, stays);
* a record with no wordings gets one, its own message and pattern, with the releases that
  printed it.

`--check` writes nothing and exits 1 when a record would change (tests/records/
test_release_wordings.py runs the same comparison). Chip-only examples (`# oracle: chip`) are
not run on a CPU: their releases are the record's `chips`.

Usage: scripts/release_wordings.py [--check]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "server"))

from pallas_lsp.kinds import KINDS_DIR  # noqa: E402
from pallas_lsp.lowering import _version_key  # noqa: E402

MESSAGES = REPO / "tests" / "data" / "releases" / "messages"


def printed_by(messages_dir: Path = MESSAGES) -> dict[str, dict[str, set[str]]]:
    """record slug -> release -> what its examples printed there: each run's first message line,
    and the error a host callback carried (the GPU interpreter's errors reach the program as a
    JaxRuntimeError that wraps them)."""
    out: dict[str, dict[str, set[str]]] = {}
    for path in sorted(messages_dir.glob("jax-*.json")):
        release = path.stem[len("jax-"):]
        for run in json.loads(path.read_text())["cases"].values():
            if run.get("outcome") != "raises":
                continue
            lines = out.setdefault(run["record"], {}).setdefault(release, set())
            lines.add(run["message"].splitlines()[0] if run.get("message") else "")
            if run.get("callback_error"):
                lines.add(run["callback_error"].strip().splitlines()[-1].split(": ", 1)[-1])
    return out


def _matches(pattern: str, message: str) -> bool:
    return re.search(pattern, message) is not None


def seed_slugs() -> set[str]:
    """The seed records (their rules' codes are the seed family's), which ship byte-identical to
    the shared dataset: never rewritten."""
    from pallas_lsp.kinds.ranges import family_of
    from pallas_lsp.rules import default_rule_set

    return {rule.record for rule in default_rule_set() if (family := family_of(rule.code)) and family.name == "seed"}


def updated_record(record: dict, printed: dict[str, set[str]], others: list[str] = ()) -> dict:
    """The record with the releases that printed its message added to its wordings. ``others``:
    the other records' patterns; a record whose own message one of them also matches (two
    causes, one message) gets no wording of it, which would make the message ambiguous."""
    record = json.loads(json.dumps(record))
    wordings = record.get("wordings")
    if not printed or record.get("raisedAt") and not record.get("messagePattern"):
        return record
    if not wordings:
        if any(re.search(pattern, record["errorMessage"]) for pattern in others):
            return record
        releases = sorted((r for r, lines in printed.items()
                           if any(_matches(record["messagePattern"], m) for m in lines)), key=_version_key)
        if releases:
            record["wordings"] = [{"message": record["errorMessage"], "pattern": record["messagePattern"],
                                   "releases": releases}]
        return record
    for wording in wordings:
        seen = {r for r, lines in printed.items() if any(_matches(wording["pattern"], m) for m in lines)}
        wording["releases"] = sorted(set(wording["releases"]) | seen, key=_version_key)
    return record


def _all_records() -> dict[Path, dict]:
    return {path: json.loads(path.read_text())["record"] for path in sorted(KINDS_DIR.glob("*/record.json"))}


def records() -> dict[Path, dict]:
    """Each kind folder's record but the seed records, by its file."""
    seeds = seed_slugs()
    return {path: record for path, record in _all_records().items() if record["slug"] not in seeds}


def patterns_by_slug() -> dict[str, list[str]]:
    """Each shipped record's message patterns (its own and its wordings'), by slug."""
    return {record["slug"]: [record.get("messagePattern") or "$^"] + [w["pattern"] for w in record.get("wordings", ())]
            for record in _all_records().values()}


def patterns_besides(slug: str, patterns: dict[str, list[str]]) -> list[str]:
    """Every message pattern of the shipped records but ``slug``'s."""
    return [p for other, own in patterns.items() if other != slug for p in own]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a record would change")
    opts = parser.parse_args()
    printed = printed_by()
    patterns = patterns_by_slug()
    changed = []
    for path, record in records().items():
        new = updated_record(record, printed.get(record["slug"], {}), patterns_besides(record["slug"], patterns))
        if new != record:
            changed.append(path)
            if not opts.check:
                data = json.loads(path.read_text())
                data["record"] = new
                path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    for path in changed:
        print(f"{'would change' if opts.check else 'updated'}: {path.relative_to(REPO)}")
    return 1 if opts.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
