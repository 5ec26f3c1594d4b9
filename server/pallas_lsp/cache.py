"""``check``'s cache on disk: what a second run, or a one-file check after a small change,
does not work out again.

Two kinds of entry, in one JSON file per workspace root under the cache folder
(``.pallas-lsp-cache/`` by default, ``--cache-dir`` or ``cache-dir`` in pyproject.toml,
``--no-cache`` for none):

- **facts** by content hash: each file's import statements and Pallas words
  (:class:`analysis.program.FileFacts`), from which the import graph and what concerns
  Pallas are worked out again on every run (stats, no parsing);
- **stats** by path: each file's content hash with the ``os.stat`` it was read under (mtime,
  ctime, size, inode), so a later run takes the hash of a file whose stat is unchanged without
  reading it (git's index, ruff's cache). A hash is trusted only for a file whose ctime was
  at least :data:`SETTLED_NS` older than the moment it was read: a file written again after
  that has another ctime, which no program can set back (``touch -d`` sets mtime only);
- **results** by file: its findings, with what its analysis depended on: the content of every
  module it read, every importer list and every "concerns Pallas" answer it asked for, the
  list of workspace files, the tool's own code and the settings. A result is used only when all
  of them are what they are now, so a cache is never a source of stale results; an analysis
  that asked jedi (which reads files on its own) is not kept.

A cache folder can come with a repository (committed, or planted by a pull request), so
entries are authenticated: each file carries an HMAC under a key kept in the user's own cache
folder (``$XDG_CACHE_HOME/pallas-lsp/key``, mode 0600) and a file that does not verify is
ignored. Nothing in it is ever executed (JSON only). Two runs may share a folder: each
writes a whole new file and renames it into place.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Iterable

from .analysis.findings import Finding, Related, Severity
from .analysis.import_scan import LazyImportFacts
from .analysis.module import Span
from .analysis.program import FileFacts
from .files import FileReadError, read_regular_bytes

FORMAT = 1
MAX_CACHE_BYTES = 256 << 20  # a cache file larger than this is not read
DEFAULT_FOLDER = ".pallas-lsp-cache"
UNCACHEABLE = "?jedi"  # a dependency no cache can check (see Program.note)
SETTLED_NS = 3_000_000_000  # (a file changed within this of being read is hashed again next run)
MAX_STATS = 200_000  # stat entries kept (beyond: started afresh, as the memory bound of a run)


def content_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def tool_key() -> str:
    """The version and the code of this tool (its modules and shipped records): results of
    another build are not used."""
    from . import __version__

    h = hashlib.blake2b(__version__.encode(), digest_size=16)
    package = Path(__file__).resolve().parent
    for p in sorted(package.rglob("*")):
        if p.suffix in (".py", ".json") and p.is_file():
            h.update(str(p.relative_to(package)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def _user_key() -> bytes | None:
    """The HMAC key, created on first use in the user's cache folder; None when it cannot be."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "pallas-lsp")
    path = os.path.join(folder, "key")
    try:
        data = read_regular_bytes(path, 4096)
        if len(data) >= 32:
            return data
    except FileReadError:
        pass
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another run made it just now
        try:
            data = read_regular_bytes(path, 4096)
            return data if len(data) >= 32 else None
        except FileReadError:
            return None
    except OSError:
        return None
    key = secrets.token_bytes(32)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
    return key


class CheckCache:
    def __init__(self, file: Path, key: bytes, tool: str) -> None:
        self.file = file
        self._key = key
        self.tool = tool
        self.facts: dict[str, list] = {}
        self.results: dict[str, dict] = {}
        # Import edges: {"layout": Program.layout_key(), "by_path": {path: [content hash, targets]}}
        # (one layout at a time: a file created, deleted or an __init__ edited starts afresh).
        self.edges: dict = {}
        # path -> [mtime_ns, ctime_ns, size, inode, content hash, when it was read (ns)]
        self.stats: dict[str, list] = {}
        self._pending: dict[str, tuple[list, int]] = {}  # path -> (its stat, the time) taken before a read
        self.changed = False
        self.hits = self.misses = 0

    @classmethod
    def open(cls, folder: str | os.PathLike, root: str | os.PathLike) -> "CheckCache | None":
        """The cache of the workspace ``root`` in ``folder``, read if there is a valid one; None
        when no key can be had (nothing is cached then)."""
        key = _user_key()
        if key is None:
            return None
        name = hashlib.blake2b(os.fspath(Path(root).resolve()).encode("utf-8", "surrogatepass"),
                               digest_size=12).hexdigest()
        cache = cls(Path(folder) / f"v{FORMAT}" / f"{name}.json", key, tool_key())
        cache._load()
        return cache

    # --- the file ---------------------------------------------------------------------------------
    def _mac(self, body: bytes) -> str:
        return hmac.new(self._key, body, hashlib.sha256).hexdigest()

    def _load(self) -> None:
        try:
            raw = read_regular_bytes(self.file, MAX_CACHE_BYTES)
        except FileReadError:
            return
        mac, _, body = raw.partition(b"\n")
        if not hmac.compare_digest(mac.decode("ascii", "replace"), self._mac(body)):
            return  # not ours (or damaged): ignored, and replaced when this run saves
        try:
            data = json.loads(body)
        except ValueError:
            return
        if not isinstance(data, dict) or data.get("tool") != self.tool:
            return
        facts, results, edges = data.get("facts"), data.get("results"), data.get("edges", {})
        if isinstance(facts, dict) and isinstance(results, dict):
            self.facts, self.results = facts, results
            if isinstance(edges, dict) and isinstance(edges.get("by_path"), dict):
                self.edges = edges
            stats = data.get("stats")
            if isinstance(stats, dict):
                self.stats = stats

    def save(self) -> None:
        """Write the cache (when anything changed), atomically; a folder that cannot be written
        is not an error (the next run just works the results out again)."""
        if not self.changed:
            return
        if len(self.stats) > MAX_STATS:
            self.stats = {}
        body = json.dumps({"tool": self.tool, "facts": self.facts, "results": self.results,
                           "edges": self.edges, "stats": self.stats},
                          separators=(",", ":")).encode()
        folder = self.file.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
            top = folder.parent
            ignore = top / ".gitignore"
            if not ignore.exists():  # (never committed by accident: ruff's convention)
                ignore.write_text("# Created by pallas-lsp check\n*\n")
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "wb") as f:
                f.write(self._mac(body).encode() + b"\n" + body)
            os.replace(tmp, self.file)
        except OSError:
            try:
                os.unlink(tmp)  # type: ignore[possibly-undefined]
            except (OSError, NameError):
                pass

    # --- content hashes by stat (analysis.program.FactsStore) ------------------------------------
    def known_digest(self, path: str) -> str | None:
        """The content hash kept for ``path`` if its stat is the one it was read under (and it
        had settled then); None otherwise, and the stat taken now is what :meth:`digest`
        records for the text read next."""
        now = time.time_ns()
        try:
            st = os.stat(path)
        except OSError:
            self._pending.pop(path, None)
            return None
        stat = [st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino]
        raw = self.stats.get(path)
        if isinstance(raw, list) and len(raw) == 6 and raw[:4] == stat and isinstance(raw[4], str) \
                and isinstance(raw[5], int) and raw[1] + SETTLED_NS <= raw[5]:
            return raw[4]
        self._pending[path] = (stat, now)
        return None

    def digest(self, path: str, text: str) -> str:
        """The content hash of the text just read for ``path``; kept with the stat
        :meth:`known_digest` took before the read (a file changed in between has another stat
        by the next run, and is read again)."""
        h = content_hash(text)  # (no memo by text: it would keep every file's text alive)
        pending = self._pending.pop(path, None)
        if pending is not None:
            stat, when = pending
            entry = [*stat, h, when]
            if self.stats.get(path) != entry:
                self.stats[path] = entry
                self.changed = True
        return h

    # --- facts (analysis.program.FactsStore) -------------------------------------------------------
    def get(self, digest: str) -> FileFacts | None:
        raw = self.facts.get(digest)
        if not isinstance(raw, list) or len(raw) != 3:
            return None
        try:
            imports, pallas, words = raw
            return FileFacts(LazyImportFacts(imports), bool(pallas), str(words))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return None

    def put(self, digest: str, facts: FileFacts) -> None:
        self.facts[digest] = [[i.to_json() for i in facts.imports], facts.mentions_pallas, facts.launch_words]
        self.changed = True

    # --- import edges (analysis.program.FactsStore) ------------------------------------------------
    def get_edges(self, layout: str, path: str, digest: str) -> set[str] | None:
        if self.edges.get("layout") != layout:
            return None
        raw = self.edges["by_path"].get(path)
        if not (isinstance(raw, list) and len(raw) == 2 and raw[0] == digest
                and isinstance(raw[1], list) and all(isinstance(t, str) for t in raw[1])):
            return None
        return set(raw[1])

    def put_edges(self, layout: str, path: str, digest: str, targets: set[str]) -> None:
        if self.edges.get("layout") != layout:
            self.edges = {"layout": layout, "by_path": {}}
        self.edges["by_path"][path] = [digest, sorted(targets)]
        self.changed = True

    # --- results ---------------------------------------------------------------------------------
    def lookup(self, path: str, settings: str, value_of) -> list[Finding] | None:
        """The findings kept for ``path`` if everything they depended on is unchanged:
        ``value_of(dependency)`` says what a dependency is now."""
        entry = self.results.get(path)
        if not isinstance(entry, dict) or entry.get("settings") != settings:
            self.misses += 1
            return None
        deps = entry.get("deps")
        try:
            if not isinstance(deps, dict) or any(value_of(d) != v for d, v in deps.items()):
                self.misses += 1
                return None
            findings = [_finding(f) for f in entry.get("findings", ())]
        except (TypeError, ValueError, KeyError):
            self.misses += 1
            return None
        self.hits += 1
        return findings

    def keep(self, path: str, settings: str, deps: Iterable[str], value_of, findings: list[Finding]) -> None:
        self.keep_values(path, settings, {d: value_of(d) for d in set(deps)}, findings)

    def keep_values(self, path: str, settings: str, values: dict[str, str], findings: list[Finding]) -> None:
        """Keep a result with its dependencies' values (worked out where it was analysed)."""
        if UNCACHEABLE in values:
            self.results.pop(path, None)
            return
        self.results[path] = {"settings": settings, "deps": dict(sorted(values.items())),
                              "findings": [_plain(f) for f in findings]}
        self.changed = True


def _plain(f: Finding) -> dict:
    return {"code": f.code, "rule": f.rule, "record": f.record, "severity": f.severity.value,
            "message": f.message, "span": _span(f.span),
            "related": [[_span(r.span), r.message, r.path] for r in f.related],
            "actual_error": f.actual_error, "kernel": f.kernel, "launch_line": f.launch_line,
            "chain": list(f.chain), "path": f.path, "secondary": f.secondary,
            "extra": {k: f.extra[k] for k in ("assumed",) if k in f.extra}}


def _span(s: Span) -> list[int]:
    return [s.line, s.col, s.end_line, s.end_col]


def _finding(raw: dict) -> Finding:
    def span(v) -> Span:
        a, b, c, d = (int(x) for x in v)
        return Span(a, b, c, d)

    return replace(Finding(str(raw["code"]), str(raw["rule"]), raw["record"], Severity(raw["severity"]),
                           str(raw["message"]), span(raw["span"])),
                   related=tuple(Related(span(s), str(m), p) for s, m, p in raw["related"]),
                   actual_error=str(raw["actual_error"]), kernel=str(raw["kernel"]),
                   launch_line=raw["launch_line"], chain=tuple(str(c) for c in raw["chain"]),
                   path=raw["path"], secondary=bool(raw["secondary"]), extra=dict(raw.get("extra") or {}))
