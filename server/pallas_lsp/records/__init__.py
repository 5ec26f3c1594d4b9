"""Error records: JSON descriptions of real JAX errors that every message, hover and fix draws on.

A records file holds one record or a list. Each record is either wrapped
(``{"record": {...}, "datasetVersion": ...}``, the user's dataset format) or bare.
Loading never stops at the first bad record: the valid ones load and each bad
one becomes a :class:`RecordProblem` naming the file and the field.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Iterable

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
}
SUPPORTED_SCHEMA_VERSIONS = {2}
# Records are user data; keep pathological files from eating the server.
MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_PATTERN_CHARS = 2000
# Text matched against patterns is cut to this many characters per line, which bounds
# the cost of any regex (Python's re has no timeout).
MAX_MATCH_LINE_CHARS = 4000


@dataclass(frozen=True)
class ErrorRecord:
    id: str
    slug: str
    error_message: str
    message_pattern: re.Pattern[str]
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
    source: str = ""  # the file it came from ("<builtin>" for the shipped seed records)
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def title(self) -> str:
        return f"{self.error_class}: {self.error_message}"


@dataclass(frozen=True)
class RecordProblem:
    path: str
    where: str  # e.g. "record[2].messagePattern"
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.where}: {self.message}" if self.where else f"{self.path}: {self.message}"


def _type_name(t: type | tuple[type, ...]) -> str:
    if isinstance(t, tuple):
        return " or ".join(x.__name__ for x in t)
    return {str: "string", list: "list", int: "integer", dict: "object"}.get(t, t.__name__)


def _check_pattern(pattern: str) -> str | None:
    """Why a pattern is unusable, or None. Rejects nested unbounded quantifiers like (a+)+,
    the classic catastrophic-backtracking shape."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"pattern longer than {MAX_PATTERN_CHARS} characters"
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"invalid regular expression: {exc}"
    if re.search(r"\((?:[^()\\]|\\.)*[+*](?:[^()\\]|\\.)*\)[+*{]", pattern):
        return "nested repetition (like (a+)+) can backtrack catastrophically; rewrite the pattern"
    return None


def parse_record(obj: Any, path: str, where: str) -> tuple[ErrorRecord | None, list[RecordProblem]]:
    """Validate one record object (wrapped or bare)."""
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
            problems.append(RecordProblem(path, f"{where}.{name}", f"must be a {_type_name(typ)}, got {type(value).__name__}"))
    for name in ("solutions", "preventionTips", "tags"):
        value = obj.get(name)
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            problems.append(RecordProblem(path, f"{where}.{name}", "must be a list of strings"))
    version = obj.get("schemaVersion")
    if isinstance(version, int) and not isinstance(version, bool) and version not in SUPPORTED_SCHEMA_VERSIONS:
        problems.append(RecordProblem(path, f"{where}.schemaVersion", f"unsupported schema version {version} (supported: 2)"))
    pattern = obj.get("messagePattern")
    if isinstance(pattern, str) and pattern.strip():
        why = _check_pattern(pattern)
        if why:
            problems.append(RecordProblem(path, f"{where}.messagePattern", why))
    if problems:
        return None, problems
    line = obj.get("lineNumber")
    return ErrorRecord(
        id=obj["id"],
        slug=obj["slug"],
        error_message=obj["errorMessage"],
        message_pattern=re.compile(obj["messagePattern"]),
        error_class=obj["errorClass"],
        documentation=obj.get("documentation") or "",
        trigger_scenarios=obj.get("triggerScenarios") or "",
        common_situations=obj.get("commonSituations") or "",
        solutions=tuple(obj.get("solutions") or ()),
        example_fix=obj.get("exampleFix") or "",
        github_url=obj.get("githubUrl") or "",
        file_path=obj.get("filePath") or "",
        line_number=line if isinstance(line, int) else None,
        prevention_tips=tuple(obj.get("preventionTips") or ()),
        tags=tuple(obj.get("tags") or ()),
        source=path,
        raw=obj,
    ), []


def parse_records_text(text: str, path: str) -> tuple[list[ErrorRecord], list[RecordProblem]]:
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
    for i, item in enumerate(items):
        where = f"record[{i}]" if isinstance(data, list) else "record"
        rec, probs = parse_record(item, path, where)
        problems.extend(probs)
        if rec is not None:
            records.append(rec)
    return records, problems


def load_records_file(path: str | Path) -> tuple[list[ErrorRecord], list[RecordProblem]]:
    p = Path(path)
    try:
        if p.stat().st_size > MAX_FILE_BYTES:
            return [], [RecordProblem(str(p), "", f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")]
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [], [RecordProblem(str(p), "", f"cannot read: {exc}")]
    return parse_records_text(text, str(p))


def load_records_path(path: str | Path) -> tuple[list[ErrorRecord], list[RecordProblem]]:
    """A file, or every *.json in a folder."""
    p = Path(path)
    if p.is_dir():
        records, problems = [], []
        for child in sorted(p.glob("*.json")):
            r, pr = load_records_file(child)
            records += r
            problems += pr
        return records, problems
    return load_records_file(p)


@dataclass
class RecordStore:
    records: list[ErrorRecord] = field(default_factory=list)
    problems: list[RecordProblem] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._by_slug: dict[str, ErrorRecord] = {}
        self._by_id: dict[str, ErrorRecord] = {}
        for rec in list(self.records):
            self._index(rec)

    def _index(self, rec: ErrorRecord) -> None:
        # A later file may override a record of the same slug (user data wins over builtin).
        old = self._by_slug.get(rec.slug)
        if old is not None and old in self.records and old is not rec:
            self.records.remove(old)
        if rec not in self.records:
            self.records.append(rec)
        self._by_slug[rec.slug] = rec
        self._by_id[rec.id] = rec

    def add(self, records: Iterable[ErrorRecord], problems: Iterable[RecordProblem] = ()) -> None:
        for rec in records:
            self._index(rec)
        self.problems.extend(problems)

    def add_path(self, path: str | Path) -> list[RecordProblem]:
        records, problems = load_records_path(path)
        self.add(records, problems)
        return problems

    def by_slug(self, slug: str) -> ErrorRecord | None:
        return self._by_slug.get(slug)

    def by_id(self, rid: str) -> ErrorRecord | None:
        return self._by_id.get(rid)

    def match(self, text: str) -> list[tuple[ErrorRecord, str]]:
        """Records whose messagePattern matches a line of ``text`` (a message or a whole
        traceback), with the matching line; best (longest literal message) first."""
        hits: dict[str, tuple[ErrorRecord, str]] = {}
        lines = [ln[:MAX_MATCH_LINE_CHARS] for ln in text.splitlines()[:20000]]
        for rec in self.records:
            for ln in lines:
                if rec.message_pattern.search(ln):
                    hits.setdefault(rec.slug, (rec, ln.strip()))
                    break
        return sorted(hits.values(), key=lambda h: -len(h[0].error_message))


def builtin_records() -> tuple[list[ErrorRecord], list[RecordProblem]]:
    records: list[ErrorRecord] = []
    problems: list[RecordProblem] = []
    data = resources.files("pallas_lsp.records") / "data"
    for entry in sorted(data.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            r, p = parse_records_text(entry.read_text(encoding="utf-8"), f"<builtin>/{entry.name}")
            records += r
            problems += p
    return records, problems


def default_store(extra_paths: Iterable[str | Path] = ()) -> RecordStore:
    records, problems = builtin_records()
    store = RecordStore(records, list(problems))
    for p in extra_paths:
        store.add_path(p)
    return store
