#!/usr/bin/env python3
"""Run the shared corpora under another jax release and write what each case does there.

Usage:
    scripts/relabel_releases.py --jax X [--corpus NAME ...] [--python EXE] [-j N] [--timeout S]

For each corpus (default: all four of CORPORA present under ../shared) every case runs in its own
process under the release's interpreter (.oracle-env-X, built with `scripts/oracle-env --jax X`
when missing; .oracle-env for the pin), JAX_PLATFORMS=cpu, with a timeout, at most 2 at a time
and at the lowest CPU priority (the machine is shared). The per-case runner is the corpus's own
(imported from ../shared/<corpus>/), so a case runs exactly as its labels were made.

Writes tests/data/releases/jax-X/<corpus>.json: a header (release, jax/jaxlib, Python, date,
command, counts) and per case the observed outcome, error class, first message line, raise site
(innermost jax frame, `path:line:function`), the label's feature, and whether the release behaves
as the 0.12.0.1 label says (`agrees`) with the reasons when it does not. Keys are sorted, so a
rerun diffs cleanly (only the date changes).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import datetime
import importlib.util
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent
PINNED_JAX = "0.12.0.1"
SCHEMA = 1
MAX_JOBS = 2  # the machine is shared: never more than two cases at once

# Observation fields written for each case (every runner reports these).
# `record` is the corpus runner's id for the message (None in corpus-prims, which has none).
OBSERVED_FIELDS = ("outcome", "error_class", "message", "raise_site", "callback_error", "record")

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
# A case that fails before reaching its construct because the release lacks a public name.
_MISSING_ATTRIBUTE = re.compile(r"^module '(?P<module>jax[\w.]*)' has no attribute '(?P<name>\w+)'")
_MISSING_IMPORT = re.compile(
    r"^cannot import name '(?P<name>\w+)' from '(?P<module>jax[\w.]*)'"
    r"|^No module named '(?P<modname>jax[\w.]*)'"
)
# A public function or class called with arguments the release's signature does not take
# (`kernel()`, `AbstractDevice.__init__()`; jax's own private helpers, `_name()`, are internal
# errors instead).
_SIGNATURE = re.compile(r"^[A-Za-z]\w*(?:\.__init__)?\(\) (got an unexpected keyword argument|missing \d+ required"
                        r"|takes \d+ positional)")


@dataclasses.dataclass(frozen=True)
class Corpus:
    """One shared corpus: where it lives and how one of its cases is run and judged."""

    name: str
    folder: Path
    run_case: Callable[[Path, str, float], dict[str, Any]]
    expected_of: Callable[[dict[str, Any]], dict[str, Any]]
    tools: frozenset[str]

    def cases(self) -> list[str]:
        return sorted(p.name for p in self.folder.glob("*.py") if p.name not in self.tools)

    def labels(self) -> dict[str, dict[str, Any]]:
        return json.loads((self.folder / "labels.json").read_text())


def load_module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def label_expectation(label: dict[str, Any]) -> dict[str, Any]:
    """What a CPU run must show for a label (prims labels hold it at the top level)."""
    return {k: label.get(k) for k in ("outcome", "error_class", "message", "raise_site")}


def probe_runner(folder: Path) -> Callable[[Path, str, float], dict[str, Any]]:
    """corpus-prims runs each case through its probe.py (in the release's Python)."""
    probe = folder / "probe.py"

    def run_case(path: Path, python: str, timeout: float) -> dict[str, Any]:
        env = dict(os.environ, JAX_TRACEBACK_FILTERING="off", JAX_PLATFORMS="cpu")
        try:
            proc = subprocess.run([python, str(probe), str(path)], capture_output=True,
                                  text=True, env=env, cwd=folder, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"outcome": "timeout", "message": f"no result within {timeout}s"}
        for line in proc.stdout.splitlines():
            if line.startswith("@@JSON@@"):
                return json.loads(line[len("@@JSON@@"):])
        tail = (proc.stderr.strip().splitlines() or [""])[-1]
        return {"outcome": "crashed", "message": f"rc={proc.returncode}: {tail[:200]}"}

    return run_case


def shared_corpora(shared: Path) -> dict[str, Corpus]:
    """The corpora whose folder is present, each with its own runner imported from there."""
    corpora: dict[str, Corpus] = {}
    wave2_runner = shared / "corpus-wave2" / "run_oracle.py"
    wave2 = load_module(wave2_runner, "wave2_run_oracle") if wave2_runner.is_file() else None
    if (shared / "corpus").is_dir() and wave2 is not None:
        seed = load_module(shared / "corpus" / "run_oracle.py", "seed_run_oracle")
        # The wave-2 runner is the seed's plus the raise site (its --legacy mode is for the seed
        # corpus); the seed's own expected_of reads its not-runnable-here labels.
        corpora["corpus"] = Corpus("corpus", shared / "corpus", wave2.run_case, seed.expected_of,
                                   frozenset({"run_oracle.py", "score.py"}))
    if wave2 is not None:
        corpora["corpus-wave2"] = Corpus("corpus-wave2", wave2_runner.parent, wave2.run_case,
                                         wave2.expected_of,
                                         frozenset(wave2.TOOLS | {"score.py"}))
    structure_runner = shared / "corpus-structure" / "run_oracle.py"
    if structure_runner.is_file():
        structure = load_module(structure_runner, "structure_run_oracle")
        corpora["corpus-structure"] = Corpus("corpus-structure", structure_runner.parent,
                                             structure.run_case, structure.expected_of,
                                             frozenset(structure.TOOLS))
    prims = shared / "corpus-prims"
    if (prims / "probe.py").is_file():
        corpora["corpus-prims"] = Corpus("corpus-prims", prims, probe_runner(prims),
                                         label_expectation,
                                         frozenset({"probe.py", "run_all.py", "score.py"}))
    return corpora


CORPUS_NAMES = ("corpus", "corpus-wave2", "corpus-prims", "corpus-structure")


def normalize(text: str | None, corpus_folder: Path) -> str | None:
    """A message without run-specific parts: addresses and the corpus's own folder."""
    if text is None:
        return None
    text = _ADDRESS.sub("0x?", text)
    return text.replace(str(corpus_folder).rstrip("/") + "/", "<corpus>/")


def site_file(site: str | None) -> str | None:
    """The file part of a raise site: lines move between releases, files rarely do."""
    if not site:
        return None
    return site.split(":", 1)[0].removeprefix("jax/")


def missing_api(observed: dict[str, Any]) -> str | None:
    """`module.name` when the case stopped because the release lacks that public name."""
    message = observed.get("message") or ""
    if observed.get("error_class") == "AttributeError":
        match = _MISSING_ATTRIBUTE.match(message)
        if match:
            return f"{match['module']}.{match['name']}"
    if observed.get("error_class") in ("ImportError", "ModuleNotFoundError"):
        match = _MISSING_IMPORT.match(message)
        if match:
            if match["modname"]:
                return match["modname"]
            return f"{match['module']}.{match['name']}"
    return None


def judge(expected: dict[str, Any], observed: dict[str, Any],
          corpus_folder: Path) -> tuple[bool, str | None, list[str], str | None]:
    """(agrees, category of the disagreement, reasons, missing public name) for one case.

    A release behaves as labelled when the outcome, the error class and the first message line
    (normalised) or its record are the label's; when the message is empty (a bare assert) the raise site's
    file must match too, since it is then what tells the error apart. Line numbers are not
    compared: they move between releases without a change in behaviour.
    """
    reasons: list[str] = []
    got_outcome = observed.get("outcome")
    if got_outcome != expected.get("outcome"):
        reasons.append(f"outcome: labelled {expected.get('outcome')!r}, got {got_outcome!r}")
    elif got_outcome == "raises":
        if observed.get("error_class") != expected.get("error_class"):
            reasons.append(f"error_class: labelled {expected.get('error_class')!r}, "
                           f"got {observed.get('error_class')!r}")
        want = normalize(expected.get("message"), corpus_folder)
        got = normalize(observed.get("message"), corpus_folder)
        # The corpus's records match messages whose detail varies (a prefix, a pattern): the
        # same record is the same error, whatever the detail says.
        same_record = bool(expected.get("record")) and expected.get("record") == observed.get("record")
        if want != got and not same_record:
            reasons.append(f"message: labelled {want!r}, got {got!r}")
        elif not want and expected.get("raise_site") and (
                site_file(expected.get("raise_site")) != site_file(observed.get("raise_site"))):
            reasons.append(f"raise_site: labelled in {site_file(expected.get('raise_site'))}, "
                           f"got {observed.get('raise_site')!r}")
    if not reasons:
        return True, None, [], None
    absent = missing_api(observed)
    if absent:
        category = "missing-api"
        reasons.insert(0, f"the release has no {absent}: the case stops before its construct")
    elif got_outcome in ("timeout", "crashed", "probe-failed"):
        category = str(got_outcome)
    elif got_outcome == "clean":
        category = "clean-now"
    elif observed.get("error_class") == "TypeError" and _SIGNATURE.match(observed.get("message") or ""):
        # (before raises-now: a clean case stopped by a signature never reached its construct either)
        category = "api-signature"
        reasons.insert(0, "a jax call's signature differs in the release: the case stops "
                          "before its construct")
    elif expected.get("outcome") == "clean":
        category = "raises-now"
    else:
        category = "other-error"
    return False, category, reasons, absent


def interpreter_facts(python: str) -> dict[str, str]:
    code = ("import json, platform, jax, jaxlib; print(json.dumps({'jax': jax.__version__, "
            "'jaxlib': jaxlib.__version__, 'python': platform.python_version()}))")
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, JAX_PLATFORMS="cpu"))
    facts: dict[str, str] = json.loads(out.stdout.strip().splitlines()[-1])
    return facts


def release_python(jax_version: str, explicit: str | None) -> str:
    """The interpreter of the release's oracle environment, built when missing."""
    if explicit:
        return explicit
    if jax_version == PINNED_JAX:
        subprocess.run([str(REPO / "scripts" / "oracle-env")], check=True)
        return str(REPO / ".oracle-env" / "bin" / "python")
    subprocess.run([str(REPO / "scripts" / "oracle-env"), "--jax", jax_version], check=True)
    return str(REPO / f".oracle-env-{jax_version}" / "bin" / "python")


def observe(corpus: Corpus, python: str, timeout: float, jobs: int) -> dict[str, dict[str, Any]]:
    """Run every case of a corpus under the release: what each one did."""
    names = corpus.cases()

    def run(name: str) -> dict[str, Any]:
        observed = corpus.run_case(corpus.folder / name, python, timeout)
        return {field: observed.get(field) for field in OBSERVED_FIELDS}

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return dict(zip(names, pool.map(run, names)))


def judged_entries(corpus: Corpus, observations: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The per-case entries of a release label file: each observation judged against its label."""
    labels = corpus.labels()
    entries: dict[str, dict[str, Any]] = {}
    for name, observed in sorted(observations.items()):
        entry = {field: observed.get(field) for field in OBSERVED_FIELDS}
        entry["message"] = normalize(entry["message"], corpus.folder)
        label = labels.get(name)
        if label is None:
            entry.update(feature=None, agrees=None, category="unlabelled", why=["no label"],
                         missing_api=None)
        else:
            agrees, category, why, absent = judge(corpus.expected_of(label), observed,
                                                  corpus.folder)
            entry.update(feature=label.get("feature"), agrees=agrees, category=category, why=why,
                         missing_api=absent)
        entries[name] = entry
    return entries


def summary(entries: dict[str, dict[str, Any]]) -> dict[str, Any]:
    categories = Counter(e["category"] for e in entries.values() if e["category"])
    stopped_early = categories["missing-api"] + categories["api-signature"]
    return {
        "cases": len(entries),
        "agree": sum(1 for e in entries.values() if e["agrees"]),
        "disagree": sum(1 for e in entries.values() if e["agrees"] is False),
        "reach_construct": len(entries) - stopped_early,
        "by_category": dict(sorted(categories.items())),
        "missing_apis": sorted({e["missing_api"] for e in entries.values() if e["missing_api"]}),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jax", help="release, e.g. 0.10.2")
    parser.add_argument("--table", action="store_true",
                        help="run nothing: print the results tables of every release label file")
    parser.add_argument("--corpus", action="append", choices=CORPUS_NAMES,
                        help="corpus to run (repeatable; default: every one present)")
    parser.add_argument("--python", help="interpreter with that release (default: its oracle env)")
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared",
                        help="folder holding the shared corpora (default: ../shared)")
    parser.add_argument("--out", type=Path, default=REPO / "tests" / "data" / "releases")
    parser.add_argument("-j", "--jobs", type=int, default=MAX_JOBS)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per case")
    parser.add_argument("--rejudge", action="store_true",
                        help="run nothing: judge the observations already in the label files "
                             "again (after a change to how agreement is decided)")
    args = parser.parse_args(argv)
    if args.table:
        print(results_tables(args.out), end="")
        return 0
    if not args.jax:
        parser.error("--jax is required (or --table)")

    os.nice(19)  # inherited by every case process
    jobs = max(1, min(args.jobs, MAX_JOBS))
    corpora = shared_corpora(args.shared.resolve())
    wanted = args.corpus or [n for n in CORPUS_NAMES if n in corpora]
    absent = [n for n in wanted if n not in corpora]
    if absent:
        print(f"relabel: not found under {args.shared}: {', '.join(absent)}", file=sys.stderr)
        return 2
    out_dir = args.out / f"jax-{args.jax}"
    if args.rejudge:
        for name in wanted:
            path = out_dir / f"{name}.json"
            if path.is_file():
                old = json.loads(path.read_text())
                write_label_file(path, old["header"], judged_entries(corpora[name], old["cases"]))
        return 0
    python = release_python(args.jax, args.python)
    facts = interpreter_facts(python)
    if facts["jax"] != args.jax:
        print(f"relabel: {python} has jax {facts['jax']}, not {args.jax}", file=sys.stderr)
        return 2
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in wanted:
        started = datetime.datetime.now()
        entries = judged_entries(corpora[name], observe(corpora[name], python, args.timeout, jobs))
        seconds = (datetime.datetime.now() - started).total_seconds()
        header = {
            "schema": SCHEMA,
            "release": args.jax,
            "jax": facts["jax"],
            "jaxlib": facts["jaxlib"],
            "python": facts["python"],
            "platform": "cpu",
            "corpus": name,
            "labels_from": PINNED_JAX,
            "date": started.date().isoformat(),
            "command": f"scripts/relabel_releases.py --jax {args.jax} --corpus {name}",
        }
        s = write_label_file(out_dir / f"{name}.json", header, entries)
        print(f"jax-{args.jax}/{name}.json: {s['agree']} of {s['cases']} behave as labelled, "
              f"{s['reach_construct']} reach their construct; {s['by_category']} ({seconds:.0f}s)")
    return 0


def release_key(folder: Path) -> tuple[int, ...]:
    return tuple(int(part) for part in folder.name.removeprefix("jax-").split("."))


def results_tables(out: Path) -> str:
    """Markdown: agreement per release and corpus, then the kinds whose cases stop on a missing
    public name per release (read from the label files, so the docs say what the runs showed)."""
    releases = sorted((p for p in out.glob("jax-*") if p.is_dir()), key=release_key, reverse=True)
    lines = ["| release | corpus | behave as labelled | reach their construct | agree of those reached "
             "| how the others differ |", "| --- | --- | --- | --- | --- | --- |"]
    stopped: dict[str, dict[str, set[str]]] = {}
    for folder in releases:
        release = folder.name.removeprefix("jax-")
        for name in CORPUS_NAMES:
            path = folder / f"{name}.json"
            if not path.is_file():
                continue
            data = json.loads(path.read_text())
            s, cases = data["header"]["summary"], data["cases"]
            reached = s["reach_construct"]
            share = f"{100 * s['agree'] / reached:.0f}%" if reached else "-"
            others = ", ".join(f"{k} {v}" for k, v in s["by_category"].items()) or "-"
            lines.append(f"| {release} | {name} | {s['agree']} of {s['cases']} | {reached} | {share} "
                         f"| {others} |")
            for case in cases.values():
                if case["missing_api"] and case["feature"]:
                    stopped.setdefault(case["feature"], {}).setdefault(release, set()).add(
                        case["missing_api"].rsplit(".", 1)[1])
    lines += ["", "| kind (feature) | release: public names its cases need and the release lacks |",
              "| --- | --- |"]
    for feature in sorted(stopped):
        per_release = "; ".join(f"{r}: {', '.join(sorted(stopped[feature][r]))}"
                                for r in sorted(stopped[feature], key=lambda r: release_key(Path(r))))
        lines.append(f"| `{feature}` | {per_release} |")
    return "\n".join(lines) + "\n"


def write_label_file(path: Path, header: dict[str, Any],
                     entries: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Write one release label file (sorted keys: reruns diff cleanly); its summary."""
    header = dict(header, summary=summary(entries))
    path.write_text(json.dumps({"header": header, "cases": entries}, indent=1, sort_keys=True)
                    + "\n")
    result: dict[str, Any] = header["summary"]
    return result


if __name__ == "__main__":
    sys.exit(main())
