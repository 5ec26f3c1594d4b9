"""Error records: JSON descriptions of real JAX errors that every message, hover and fix draws on.

A records file holds one record or a list. Each record is either wrapped
(``{"record": {...}, "datasetVersion": ...}``, the user's dataset format) or bare.
Loading never stops at the first bad record: the valid ones load and each bad
one becomes a :class:`RecordProblem` naming the file and the field.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import urlsplit

from ..kinds import KINDS_DIR
from ..kinds import scan as scan_kinds
from .detection import Detection, DetectionError, parse_detection
from .patterns import RecordPattern, check_pattern, deferred_pattern, linear_engine_available
from .tracebacks import BareRaise, bare_raises, site_matches

# Field name -> expected JSON type(s). Required fields must be present and non-empty.
REQUIRED_FIELDS: dict[str, type | tuple[type, ...]] = {
    "id": str,
    "slug": str,
    "errorMessage": str,
    "messagePattern": str,
    "errorClass": str,
}
OPTIONAL_FIELDS: dict[str, type | tuple[type, ...]] = {
    "repo": str,
    "documentation": str,
    "triggerScenarios": str,
    "commonSituations": str,
    "solutions": list,
    "exampleFix": str,
    "githubUrl": str,
    "filePath": str,
    "lineNumber": int,
    "severity": str,
    "preventionTips": list,
    "tags": list,
    "analyzedSha": str,
    "schemaVersion": int,
    "detection": dict,  # how the analysis finds the error (records/detection.py)
    "wordings": list,  # the messages JAX releases print for it (Wording)
    "raisedAt": list,  # where JAX raises it with no message (RaiseSite)
    "releases": list,  # the only jax releases that raise it, where the others do not (quiet there)
    "chips": list,  # the TPU generations whose chip showed it, with the jax releases (ChipSighting)
}
SUPPORTED_SCHEMA_VERSIONS = {2}
# Records are user data; keep pathological files from eating the server.
MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_PATTERN_CHARS = 2000
# About 4 s of pattern checking for all the records files one store reads: ~4,000 records of
# typical 60-character patterns, fewer if they are long or complex.
MAX_PATTERN_WORK = 4_000_000
# Text matched against patterns is cut to this many characters per line and lines (patterns
# run on RE2, linear in the text; see patterns.py). The work of one match over all records is
# bounded too: characters scanned plus a per-call cost, summed over records and lines.
MAX_MATCH_LINE_CHARS = 4000
MAX_MATCH_LINES = 20000
MAX_MATCH_TEXT_CHARS = 2_000_000
# One RE2 call costs about as much as scanning 1,500 characters (~6 us); 150 M units take
# 0.5-1 s. The built-in records are always tried, user records until the bound is reached.
MATCH_CALL_COST = 1500
MAX_MATCH_WORK = 150_000_000
MAX_MATCH_SECONDS = 2.0  # and a wall-clock bound on trying user records, whatever they hold
MAX_LINK_CHARS = 2000
BUILTIN_SOURCE = "<builtin>"


@dataclass(frozen=True)
class Wording:
    """A message JAX prints for a record's error, and the releases whose source prints it
    (``releases``: jax versions, "0.4.30"). ``message`` is the text with its interpolated parts
    as ``<name>``; ``pattern`` matches it, and what a paste keeps of it."""

    message: str
    pattern: RecordPattern
    releases: tuple[str, ...]


@dataclass(frozen=True)
class RaiseSite:
    """Where JAX raises a record's error with no message (``raise NotImplementedError``, a
    failing ``assert``): jax's path (``jax/_src/pallas/pallas_call.py``) and the function, in
    these releases. Line numbers move between releases, so they are not part of it."""

    file: str
    function: str
    releases: tuple[str, ...]


# The TPU generations a record's ``chips`` and the ``tpu-generation`` setting may name.
TPU_GENERATIONS = ("v4", "v5e", "v5p", "v6e", "v7x")


@dataclass(frozen=True)
class ChipSighting:
    """A TPU generation whose real chip showed a record's error (most are raised inside libtpu's
    Mosaic compiler, so only a chip can tell), and the jax releases it was run with."""

    generation: str
    releases: tuple[str, ...]

    def described(self) -> str:
        """``TPU v5e, jax 0.10.2``."""
        return f"TPU {self.generation}, jax {', '.join(self.releases)}"


@dataclass(frozen=True)
class ErrorRecord:
    id: str
    slug: str
    error_message: str
    message_pattern: RecordPattern
    error_class: str
    documentation: str = ""
    trigger_scenarios: str = ""
    common_situations: str = ""
    solutions: tuple[str, ...] = ()
    example_fix: str = ""
    github_url: str = ""
    file_path: str = ""
    line_number: int | None = None
    prevention_tips: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    wordings: tuple[Wording, ...] = ()
    raised_at: tuple[RaiseSite, ...] = ()
    # The only jax releases that raise it (verified by running); empty: every release.
    releases: tuple[str, ...] = ()
    # Where a real TPU showed it; empty: no chip claim (the kind is decided by jax's Python).
    chips: tuple[ChipSighting, ...] = ()
    source: str = ""  # the file it came from ("<builtin>/..." for the shipped seed records)
    detection: Detection | None = field(default=None, compare=False)  # None: no rule is declared
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def title(self) -> str:
        return f"{self.error_class}: {self.error_message}"

    @property
    def builtin(self) -> bool:
        return self.source.startswith(BUILTIN_SOURCE)

    @property
    def link(self) -> str:
        """The record's upstream link (``githubUrl``) fit to show: https only, or ""."""
        return https_link(self.github_url)


@dataclass(frozen=True)
class RecordProblem:
    path: str
    where: str  # e.g. "record[2].messagePattern"
    message: str
    # "error": the record (or file) was not loaded; "warning": it loaded, and the message says
    # what was dropped or replaced.
    severity: str = "error"

    def __str__(self) -> str:
        return f"{self.path}: {self.where}: {self.message}" if self.where else f"{self.path}: {self.message}"


def _type_name(t: type | tuple[type, ...]) -> str:
    if isinstance(t, tuple):
        return " or ".join(x.__name__ for x in t)
    return {str: "string", list: "list", int: "integer", dict: "object"}.get(t, t.__name__)


def https_link(url: Any) -> str:
    """``url`` if it is an absolute ``https:`` link that is safe to put in Markdown and in an LSP
    ``codeDescription.href``, else "". Characters that could end a Markdown link early are
    percent-encoded."""
    if not isinstance(url, str) or not url or len(url) > MAX_LINK_CHARS:
        return ""
    if any(ch.isspace() or ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F or ch == "\\" for ch in url):
        return ""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return ""
    if parts.scheme != "https" or not url.lower().startswith("https://") or not host or "@" in parts.netloc:
        return ""
    return "".join(f"%{ord(ch):02X}" if ch in "()<>\"'`[]" else ch for ch in url)


@dataclass
class PatternBudget:
    """What checking messagePatterns may cost, for all the files one store reads
    (patterns.check_pattern's work units, about a microsecond each): an 8 MiB file, or a folder
    of them, of hard patterns would otherwise take minutes."""

    left: int = MAX_PATTERN_WORK


BUDGET_SPENT = ("checking the messagePatterns read so far took all the time allowed (too many, or too "
                "complex); load fewer records or simplify their patterns")


def _check_pattern(pattern: str, budget: PatternBudget | None) -> tuple[RecordPattern | None, str | None]:
    """The compiled pattern, or why it is unusable (see patterns.py: catastrophic shapes are
    refused, and everything else runs on a linear-time engine)."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return None, f"pattern longer than {MAX_PATTERN_CHARS} characters"
    compiled, why, work = check_pattern(pattern)
    if budget is not None:
        budget.left -= work
    return compiled, why


def _name(obj: dict) -> str:
    slug = obj.get("slug")
    return f"record '{slug}'" if isinstance(slug, str) and slug.strip() else "record"


_RELEASE = re.compile(r"\d+\.\d+(?:\.\d+){0,2}")  # a jax version: 0.4.30, 0.9.0.1
_FUNCTION = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_JAX_FILE = re.compile(r"[\w.-]+(?:/[\w.-]+)*\.py")


def _releases(value: Any) -> tuple[str, ...] | None:
    if not isinstance(value, list) or not value:
        return None
    if not all(isinstance(v, str) and _RELEASE.fullmatch(v) for v in value):
        return None
    return tuple(value)


def _compile_shipped_or_checked(pattern: str, budget: PatternBudget | None,
                                shipped: bool) -> tuple[RecordPattern | None, str | None]:
    if shipped and linear_engine_available():
        return deferred_pattern(pattern), None
    return _check_pattern(pattern, budget)


def _parse_wordings(value: Any, path: str, where: str, budget: PatternBudget | None, shipped: bool,
                    name: str) -> tuple[tuple[Wording, ...], list[RecordProblem]]:
    """The record's wordings; a bad entry loses only itself (the record still loads)."""
    out: list[Wording] = []
    problems: list[RecordProblem] = []
    for i, entry in enumerate(value or ()):
        at = f"{where}.wordings[{i}]"
        lost = "; the record loads without this wording"
        if not isinstance(entry, dict):
            problems.append(RecordProblem(path, at, f"{name}: must be an object{lost}"))
            continue
        message, pattern = entry.get("message"), entry.get("pattern")
        releases = _releases(entry.get("releases"))
        if not isinstance(message, str) or not message.strip():
            problems.append(RecordProblem(path, f"{at}.message", f"{name}: must be a non-empty string{lost}"))
            continue
        if not isinstance(pattern, str) or not pattern.strip():
            problems.append(RecordProblem(path, f"{at}.pattern", f"{name}: must be a non-empty string{lost}"))
            continue
        if releases is None:
            problems.append(RecordProblem(path, f"{at}.releases", f"{name}: must be a non-empty list of jax "
                                          f"versions such as \"0.4.30\"{lost}"))
            continue
        compiled, why = _compile_shipped_or_checked(pattern, budget, shipped)
        if why:
            problems.append(RecordProblem(path, f"{at}.pattern", f"{name}: {why}{lost}"))
            continue
        out.append(Wording(message, compiled, releases))
    return tuple(out), problems


def _parse_raise_sites(value: Any, path: str, where: str,
                       name: str) -> tuple[tuple[RaiseSite, ...], list[RecordProblem]]:
    """The record's bare raise sites; a bad entry loses only itself."""
    out: list[RaiseSite] = []
    problems: list[RecordProblem] = []
    for i, entry in enumerate(value or ()):
        at = f"{where}.raisedAt[{i}]"
        lost = "; the record loads without this raise site"
        if not isinstance(entry, dict):
            problems.append(RecordProblem(path, at, f"{name}: must be an object{lost}"))
            continue
        file, function = entry.get("file"), entry.get("function")
        releases = _releases(entry.get("releases"))
        if not isinstance(file, str) or not _JAX_FILE.fullmatch(file):
            problems.append(RecordProblem(path, f"{at}.file", f"{name}: must be a relative path of a .py "
                                          f"file in jax, such as \"jax/_src/pallas/pallas_call.py\"{lost}"))
            continue
        if not isinstance(function, str) or not _FUNCTION.fullmatch(function):
            problems.append(RecordProblem(path, f"{at}.function", f"{name}: must be a function name{lost}"))
            continue
        if releases is None:
            problems.append(RecordProblem(path, f"{at}.releases", f"{name}: must be a non-empty list of jax "
                                          f"versions such as \"0.4.30\"{lost}"))
            continue
        out.append(RaiseSite(file, function, releases))
    return tuple(out), problems


def _parse_chips(value: Any, path: str, where: str,
                 name: str) -> tuple[tuple[ChipSighting, ...], list[RecordProblem]]:
    """The record's chip sightings; a bad entry loses only itself (the record still loads, with
    no claim for that generation: nothing is claimed for a chip nobody ran)."""
    out: list[ChipSighting] = []
    problems: list[RecordProblem] = []
    seen: set[str] = set()
    for i, entry in enumerate(value or ()):
        at = f"{where}.chips[{i}]"
        lost = "; the record loads without this chip"
        if not isinstance(entry, dict):
            problems.append(RecordProblem(path, at, f"{name}: must be an object{lost}"))
            continue
        generation = entry.get("generation")
        releases = _releases(entry.get("releases"))
        if generation not in TPU_GENERATIONS:
            problems.append(RecordProblem(path, f"{at}.generation", f"{name}: must be a TPU generation, one of "
                                          f"{', '.join(TPU_GENERATIONS)}, not {generation!r}{lost}"))
            continue
        if generation in seen:
            problems.append(RecordProblem(path, f"{at}.generation", f"{name}: {generation} is listed twice; "
                                          f"list its releases in one entry{lost}"))
            continue
        if releases is None:
            problems.append(RecordProblem(path, f"{at}.releases", f"{name}: must be a non-empty list of jax "
                                          f"versions such as \"0.10.2\"{lost}"))
            continue
        seen.add(generation)
        out.append(ChipSighting(generation, releases))
    return tuple(out), problems


def parse_record(obj: Any, path: str, where: str, budget: PatternBudget | None = None,
                 shipped: bool = False) -> tuple[ErrorRecord | None, list[RecordProblem]]:
    """Validate one record object (wrapped or bare). ``shipped``: one of the package's own
    records, whose messagePattern the tests check; with RE2 here it is compiled when first
    matched (patterns.deferred_pattern)."""
    problems: list[RecordProblem] = []
    if isinstance(obj, dict) and "record" in obj:
        obj = obj["record"]
        where = f"{where}.record"
    if not isinstance(obj, dict):
        return None, [RecordProblem(path, where, f"expected an object, got {type(obj).__name__}")]
    for name, typ in REQUIRED_FIELDS.items():
        value = obj.get(name)
        if value is None:
            problems.append(RecordProblem(path, f"{where}.{name}", "required field is missing"))
        elif not isinstance(value, typ) or (isinstance(value, str) and not value.strip()):
            problems.append(RecordProblem(path, f"{where}.{name}", f"must be a non-empty {_type_name(typ)}"))
    for name, typ in OPTIONAL_FIELDS.items():
        value = obj.get(name)
        if value is not None and (not isinstance(value, typ) or isinstance(value, bool)):
            problems.append(RecordProblem(path, f"{where}.{name}",
                                          f"must be a {_type_name(typ)}, got {type(value).__name__}"))
    for name in ("solutions", "preventionTips", "tags"):
        value = obj.get(name)
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            problems.append(RecordProblem(path, f"{where}.{name}", "must be a list of strings"))
    version = obj.get("schemaVersion")
    if isinstance(version, int) and not isinstance(version, bool) and version not in SUPPORTED_SCHEMA_VERSIONS:
        problems.append(RecordProblem(path, f"{where}.schemaVersion",
                                      f"unsupported schema version {version} (supported: 2)"))
    pattern = obj.get("messagePattern")
    compiled = None
    if isinstance(pattern, str) and pattern.strip():
        compiled, why = _compile_shipped_or_checked(pattern, budget, shipped)
        if why:
            problems.append(RecordProblem(path, f"{where}.messagePattern", f"{_name(obj)}: {why}"))
    if problems:
        return None, problems
    wordings, wording_problems = _parse_wordings(obj.get("wordings"), path, where, budget, shipped, _name(obj))
    raised_at, site_problems = _parse_raise_sites(obj.get("raisedAt"), path, where, _name(obj))
    chips, chip_problems = _parse_chips(obj.get("chips"), path, where, _name(obj))
    problems += wording_problems + site_problems + chip_problems
    releases = _releases(obj.get("releases")) if obj.get("releases") is not None else ()
    if releases is None:
        releases = ()
        problems.append(RecordProblem(path, f"{where}.releases", f"{_name(obj)}: must be a non-empty list of jax "
                                      "versions such as \"0.10.2\"; the record loads for every release"))
    github_url = obj.get("githubUrl") or ""
    if github_url and not https_link(github_url):
        # A link is decoration: drop it (from the record's raw data too) and keep the record.
        problems.append(RecordProblem(path, f"{where}.githubUrl",
                                      f"{_name(obj)}: not an https: link; the link is dropped and the record loads",
                                      severity="warning"))
        github_url = ""
        obj = {k: v for k, v in obj.items() if k != "githubUrl"}
    detection = None
    if obj.get("detection") is not None:
        # A bad detection section loses only itself: the record still explains and hovers.
        try:
            detection = parse_detection(obj["detection"], f"{where}.detection")
        except DetectionError as exc:
            problems.append(RecordProblem(path, exc.where, f"{_name(obj)}: {exc.message}; the record loads "
                                          "without its detection section", severity="error"))
    line = obj.get("lineNumber")
    return ErrorRecord(
        id=obj["id"],
        slug=obj["slug"],
        error_message=obj["errorMessage"],
        message_pattern=compiled,
        error_class=obj["errorClass"],
        documentation=obj.get("documentation") or "",
        trigger_scenarios=obj.get("triggerScenarios") or "",
        common_situations=obj.get("commonSituations") or "",
        solutions=tuple(obj.get("solutions") or ()),
        example_fix=obj.get("exampleFix") or "",
        github_url=github_url,
        file_path=obj.get("filePath") or "",
        line_number=line if isinstance(line, int) else None,
        prevention_tips=tuple(obj.get("preventionTips") or ()),
        tags=tuple(obj.get("tags") or ()),
        wordings=wordings,
        raised_at=raised_at,
        releases=releases,
        chips=chips,
        source=path,
        detection=detection,
        raw=obj,
    ), problems


def parse_records_text(text: str, path: str, budget: PatternBudget | None = None,
                       shipped: bool = False) -> tuple[list[ErrorRecord], list[RecordProblem]]:
    """The records of one file's text. ``budget`` is shared by every file one store reads;
    ``shipped``: the package's own records (:func:`parse_record`)."""
    if len(text) > MAX_FILE_BYTES:
        return [], [RecordProblem(path, "", f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")]
    try:
        data = json.loads(text)
    except RecursionError:
        return [], [RecordProblem(path, "", "JSON nested too deeply")]
    except ValueError as exc:
        return [], [RecordProblem(path, "", f"not valid JSON: {exc}")]
    items = data if isinstance(data, list) else [data]
    records: list[ErrorRecord] = []
    problems: list[RecordProblem] = []
    budget = budget if budget is not None else PatternBudget()
    for i, item in enumerate(items):
        where = f"record[{i}]" if isinstance(data, list) else "record"
        if budget.left <= 0:  # one message for the rest, not one per record
            rest = len(items) - i - 1
            problems.append(RecordProblem(path, where, (
                f"this record{f' and the {rest} after it' if rest else ''} not loaded: {BUDGET_SPENT}")))
            break
        rec, probs = parse_record(item, path, where, budget, shipped)
        problems.extend(probs)
        if rec is not None:
            records.append(rec)
    return records, problems


def load_records_file(path: str | Path,
                      budget: PatternBudget | None = None) -> tuple[list[ErrorRecord], list[RecordProblem]]:
    from ..files import FileReadError, read_regular_text

    p = Path(path)
    try:  # a regular file of bounded size only: a FIFO or /dev/zero here must not stall or fill memory
        text = read_regular_text(p, MAX_FILE_BYTES)
    except FileReadError as exc:
        if exc.kind == "too-large":
            return [], [RecordProblem(str(p), "", f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")]
        return [], [RecordProblem(str(p), "", f"cannot read: {exc.reason}")]
    return parse_records_text(text, str(p), budget)


def load_records_path(path: str | Path,
                      budget: PatternBudget | None = None) -> tuple[list[ErrorRecord], list[RecordProblem]]:
    """A file, or every *.json in a folder."""
    p = Path(path)
    budget = budget if budget is not None else PatternBudget()
    if p.is_dir():
        records, problems = [], []
        children = sorted(p.glob("*.json"))
        for i, child in enumerate(children):
            if budget.left <= 0:
                rest = len(children) - i
                problems.append(RecordProblem(str(p), "", f"{rest} file{'s' if rest > 1 else ''} not loaded "
                                              f"(from {child.name}): {BUDGET_SPENT}"))
                break
            r, pr = load_records_file(child, budget)
            records += r
            problems += pr
        return records, problems
    return load_records_file(p, budget)


@dataclass(frozen=True)
class MatchResult:
    hits: list[tuple[ErrorRecord, str]]  # (record, the line it matched), best first
    complete: bool  # False when the work bound stopped matching before every record was tried
    # How a hit matched, by slug, when not by its messagePattern: the wording it matched, or the
    # raise site of its bare raise.
    matched_by: dict[str, Wording | RaiseSite] = field(default_factory=dict)


@dataclass
class RecordStore:
    records: list[ErrorRecord] = field(default_factory=list)
    problems: list[RecordProblem] = field(default_factory=list)
    pattern_budget: PatternBudget = field(default_factory=PatternBudget)  # shared by every add_path

    def __post_init__(self) -> None:
        self._by_slug: dict[str, ErrorRecord] = {}
        self._by_id: dict[str, ErrorRecord] = {}
        for rec in list(self.records):
            problem = self._index(rec)
            if problem is not None:
                self.problems.append(problem)

    def _index(self, rec: ErrorRecord) -> RecordProblem | None:
        """Index one record. A later record with the slug of an earlier one replaces it (a user
        may correct or update a shipped record) and the replacement is reported, never silent."""
        problem = None
        old = self._by_slug.get(rec.slug)
        if old is not None and old != rec:
            if old.builtin and not rec.builtin:
                why = f"record '{rec.slug}' replaces the built-in record"
            elif old.source == rec.source:
                why = f"record '{rec.slug}' appears more than once; the last one is used"
            else:
                why = f"record '{rec.slug}' replaces the record of that name from {old.source}"
            problem = RecordProblem(rec.source, "", why, severity="warning")
        if old is not None and old in self.records and old is not rec:
            self.records.remove(old)
        same_id = self._by_id.get(rec.id)
        if problem is None and same_id is not None and same_id.slug != rec.slug and same_id in self.records:
            what = "the built-in record" if same_id.builtin else f"record '{same_id.slug}' from {same_id.source}"
            problem = RecordProblem(rec.source, "", f"record '{rec.slug}' has the id '{rec.id}' of {what}; "
                                    "looking up that id now finds this one", severity="warning")
        if rec not in self.records:
            self.records.append(rec)
        self._by_slug[rec.slug] = rec
        self._by_id[rec.id] = rec
        return problem

    def add(self, records: Iterable[ErrorRecord], problems: Iterable[RecordProblem] = ()) -> list[RecordProblem]:
        """Add records; returns ``problems`` plus a warning for each record that replaced another."""
        reported = list(problems)
        for rec in records:
            problem = self._index(rec)
            if problem is not None:
                reported.append(problem)
        self.problems.extend(reported)
        return reported

    def add_path(self, path: str | Path) -> list[RecordProblem]:
        records, problems = load_records_path(path, self.pattern_budget)
        return self.add(records, problems)

    def by_slug(self, slug: str) -> ErrorRecord | None:
        return self._by_slug.get(slug)

    def by_id(self, rid: str) -> ErrorRecord | None:
        return self._by_id.get(rid)

    def match(self, text: str) -> list[tuple[ErrorRecord, str]]:
        """Records whose messagePattern matches a line of ``text`` (a message or a whole
        traceback), with the matching line; best (longest literal message) first."""
        return self.match_text(text).hits

    def match_text(self, text: str, *, seconds: float = MAX_MATCH_SECONDS) -> MatchResult:
        """:meth:`match`, saying whether every record was tried: the built-in ones always are,
        the others while the work stays under ``MAX_MATCH_WORK`` and the time under ``seconds``
        (checked every line: RE2 is linear in the text, but a big pattern's program makes
        each character dearer). A record matches by its messagePattern, by one of its
        wordings, or, for an error JAX raises with no message, by the frame that raised it."""
        lines = match_lines(text)
        cost_per_pattern = sum(len(ln) + MATCH_CALL_COST for ln in lines)
        raised = bare_raises(lines)
        hits: dict[str, tuple[ErrorRecord, str]] = {}
        matched_by: dict[str, Wording | RaiseSite] = {}
        work = 0
        deadline = time.monotonic() + seconds

        def result(complete: bool) -> MatchResult:
            return MatchResult(_best_first(hits), complete, matched_by)

        for rec in self.records:
            patterns = [(rec.message_pattern, None), *((w.pattern, w) for w in rec.wordings)]
            if not rec.builtin:
                cost = cost_per_pattern * len(patterns)
                if work + cost > MAX_MATCH_WORK or time.monotonic() > deadline:
                    return result(False)
                work += cost
            hit = _pattern_hit(rec, patterns, lines, deadline)
            if hit is _OUT_OF_TIME:
                return result(False)
            if hit is None:
                hit = _site_hit(rec, raised)
            if hit is not None:
                line, how = hit
                hits[rec.slug] = (rec, line)
                if how is not None:
                    matched_by[rec.slug] = how
        return result(True)


_OUT_OF_TIME = object()


def _pattern_hit(rec: ErrorRecord, patterns: list[tuple[RecordPattern, Wording | None]], lines: list[str],
                 deadline: float):
    """(the first line a pattern matches, its wording or None), None, or _OUT_OF_TIME."""
    for pattern, wording in patterns:
        for ln in lines:
            if pattern.search(ln):
                return ln.strip(), wording
            if not rec.builtin and time.monotonic() > deadline:
                return _OUT_OF_TIME
    return None


def _site_hit(rec: ErrorRecord, raised: list[BareRaise]) -> tuple[str, RaiseSite] | None:
    """The frame that raised the record's error with no message, where a raise site names it."""
    for site in rec.raised_at:
        for r in raised:
            if r.error_class == rec.error_class and site_matches(r, site.file, site.function):
                return f"{r.frame_line} -> {r.error_class}", site
    return None


def _best_first(hits: dict[str, tuple[ErrorRecord, str]]) -> list[tuple[ErrorRecord, str]]:
    return sorted(hits.values(), key=lambda h: -len(h[0].error_message))


def match_lines(text: str) -> list[str]:
    """The lines of ``text`` that patterns are matched against: from its first
    MAX_MATCH_TEXT_CHARS characters, at most MAX_MATCH_LINES lines, each cut to
    MAX_MATCH_LINE_CHARS."""
    text = text[:MAX_MATCH_TEXT_CHARS]
    return [ln[:MAX_MATCH_LINE_CHARS] for ln in text.splitlines()[:MAX_MATCH_LINES]]


def builtin_records() -> tuple[list[ErrorRecord], list[RecordProblem]]:
    """The shipped records: each kind folder's ``record.json`` (``kinds/<slug>/``), with its
    detection section inline, or (for a seed record, which ships byte-identical) from
    ``detection/<slug>.json`` beside this module. Read and checked once per process (the rule
    set, the store and the rule-name checks all ask); fresh lists each time, since a store edits
    its own."""
    records, problems = _read_builtin_records()
    return list(records), list(problems)


@lru_cache(maxsize=1)
def _read_builtin_records() -> tuple[tuple[ErrorRecord, ...], tuple[RecordProblem, ...]]:
    records, problems = read_kind_records(KINDS_DIR)
    beside = resources.files("pallas_lsp.records") / "detection"
    if beside.is_dir():
        texts = {e.name: e.read_text(encoding="utf-8") for e in beside.iterdir() if e.name.endswith(".json")}
        records, more = attach_detections(records, texts, f"{BUILTIN_SOURCE}/detection")
        problems += more
    return tuple(records), tuple(problems)


# What ``pallas-lsp dev new-kind`` writes where a person has to: a record still holding it is
# not finished, and is refused as a shipped record (it loads, with an error, so the scaffold's
# examples can be tried).
SCAFFOLD_PLACEHOLDER = "TODO(new-kind)"


def read_kind_records(root: Path) -> tuple[list[ErrorRecord], list[RecordProblem]]:
    """The records of the kind folders under ``root``, each named ``<builtin>/<slug>.json``; a
    malformed folder, a record whose slug is not its folder's, or one holding the scaffold's
    placeholder text is a problem (the rest load)."""
    records: list[ErrorRecord] = []
    layout = scan_kinds(root)
    problems: list[RecordProblem] = [RecordProblem(p.path, "", p.message) for p in layout.problems]
    for kind in layout.kinds:
        text = kind.record_path.read_text(encoding="utf-8")
        label = f"{BUILTIN_SOURCE}/{kind.slug}.json"
        found, more = parse_records_text(text, label, shipped=True)
        problems += more
        if not found:
            continue  # (the parse problems say why)
        if len(found) != 1 or found[0].slug != kind.slug:
            slugs = ", ".join(r.slug for r in found)
            problems.append(RecordProblem(label, "record", f"a kind folder holds one record, whose slug is the "
                                                           f"folder's (`{kind.slug}`); found {slugs}"))
            records += [r for r in found if r.slug == kind.slug]
            continue
        if SCAFFOLD_PLACEHOLDER in text:
            problems.append(RecordProblem(label, "record", f"record '{kind.slug}' still holds the scaffold's "
                                                           f"`{SCAFFOLD_PLACEHOLDER}` text: write the real "
                                                           "message, pattern and documentation before shipping it"))
        records += found
    return records, problems


def attach_detections(records: list[ErrorRecord], texts: dict[str, str],
                      folder: str) -> tuple[list[ErrorRecord], list[RecordProblem]]:
    """Records with the detection sections of ``texts`` (file name -> JSON text of
    ``{"slug": ..., "detection": {...}}``) attached by slug."""
    import dataclasses

    problems: list[RecordProblem] = []
    by_slug = {r.slug: i for i, r in enumerate(records)}
    out = list(records)
    for name in sorted(texts):
        path = f"{folder}/{name}"
        try:
            obj = json.loads(texts[name])
        except (ValueError, RecursionError) as exc:
            problems.append(RecordProblem(path, "", f"not valid JSON: {exc}"))
            continue
        slug = obj.get("slug") if isinstance(obj, dict) else None
        if not isinstance(slug, str) or slug not in by_slug:
            problems.append(RecordProblem(path, "slug", f"names no loaded record ({slug!r})"))
            continue
        try:
            detection = parse_detection(obj.get("detection"), "detection")
        except DetectionError as exc:
            problems.append(RecordProblem(path, exc.where, exc.message))
            continue
        i = by_slug[slug]
        out[i] = dataclasses.replace(out[i], detection=detection)
    return out, problems


def default_store(extra_paths: Iterable[str | Path] = ()) -> RecordStore:
    records, problems = builtin_records()
    store = RecordStore(records, list(problems))
    for p in extra_paths:
        store.add_path(p)
    return store
