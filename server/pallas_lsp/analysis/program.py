"""The workspace as one program: modules by path, imports resolved across them with jedi.

Kernels call helpers in other modules, libraries forward ``interpret`` from callers in
test files, ``inline_mgpu`` helpers live in a module of their own. A :class:`Program`
holds a :class:`ModuleIndex` and an :class:`Evaluator` per workspace module (built
lazily, cached by text), resolves imports with jedi (statically: jedi parses, it never
imports workspace code; ``load_unsafe_extensions`` stays off), and knows which modules
import which, so a module open alone still sees the launches that reach it.

Everything is bounded: a module is followed only inside the workspace roots, import
chains and caller searches stop at fixed depths, and what was not followed is noted.
"""
from __future__ import annotations

import ast
import hashlib
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from collections import deque
from typing import Callable, Iterable, Iterator, Protocol

from ..files import (MAX_SOURCE_BYTES, FileReadError, SourceDecodeError, describe_os_error, folder_problem,
                     guard_jedi_reads)
from .caches import AnalysisCaches, read_source_uncached
from .evaluate import Evaluator
from .import_scan import ImportFact, scan_imports
from .module import ModuleIndex

MAX_WORKSPACE_FILES = 5000
# Packages the analysis knows by name (their APIs are what rules match): never followed into a
# workspace that happens to contain their source (a jax checkout), and neither is the stdlib.
KNOWN_EXTERNAL = {"jax", "jaxlib", "numpy", "ml_dtypes", "opt_einsum", "scipy", "absl", "typing_extensions"}
KNOWN_EXTERNAL |= set(getattr(__import__("sys"), "stdlib_module_names", ()))
SKIP_DIRS = {"__pycache__", "node_modules", "site-packages", "venv", "env", "build", "dist"}


def walk_entries(root: str | Path, suffixes: tuple[str, ...] = (".py",)) -> Iterator[tuple[str, str | None]]:
    """``(path, None)`` for each Python file under ``root`` and ``(path, why)`` for each entry
    whose files were not looked at, in sorted order. Hidden folders, virtual environments and
    build/vendor folders are skipped; symlinked folders are not followed (a symlink to a folder
    outside ``root`` is reported, one inside is reached by its real path). An entry that
    cannot be listed or examined is reported and the walk goes on: one bad entry never loses
    the rest. Nothing here reads a file."""
    root = os.fspath(root)
    real_root = os.path.realpath(root)
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            yield folder, f"cannot list this folder: {describe_os_error(exc)}"
            continue
        subfolders = []
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir()  # follows a symlink; False for a loop or a broken link
            except OSError:
                is_link, is_dir = False, False
            if is_dir and is_link:
                target = os.path.realpath(entry.path)
                if name not in SKIP_DIRS and not _inside(target, real_root):
                    yield entry.path, folder_problem(entry.path)
                continue
            if is_dir:
                if name not in SKIP_DIRS and not os.path.exists(os.path.join(entry.path, "pyvenv.cfg")):
                    subfolders.append(entry.path)
            elif name.endswith(suffixes):
                yield entry.path, None  # a FIFO, a device or a symlink loop too: its read says why
        stack.extend(reversed(subfolders))


def _inside(path: str, folder: str) -> bool:
    try:
        return os.path.commonpath([folder, path]) == folder
    except ValueError:  # another drive
        return False


def walk_python_files(root: str | Path, suffixes: tuple[str, ...] = (".py",)) -> Iterator[str]:
    """Python files under ``root``, sorted (shared by ``check`` discovery and the workspace
    program; the entries :func:`walk_entries` reports are skipped)."""
    for path, why in walk_entries(root, suffixes):
        if why is None:
            yield path


def read_source_file(path: str, max_bytes: int = MAX_SOURCE_BYTES) -> str:
    """A Python file's text, decoded as CPython decodes it, read afresh (an owner's
    :class:`caches.DiskTexts` keeps texts by their stat). Raises :class:`FileReadError` or
    :class:`SourceDecodeError`."""
    return read_source_uncached(path, max_bytes)


def read_file(path: str, max_bytes: int = MAX_SOURCE_BYTES) -> str | None:
    """:func:`read_source_file`, or None for a file that is not read (not a regular file, too
    large, unreadable) or that CPython would not decode: such a module is not followed."""
    try:
        return read_source_file(path, max_bytes)
    except (FileReadError, SourceDecodeError):
        return None


RELEVANCE_DEPTH = 4  # import steps from a Pallas module that can still matter (the analysis follows 3)


@dataclass(frozen=True)
class FileFacts:
    """What a module's text says, read without indexing it: its import statements, whether one
    of them imports Pallas (every launch, kernel API and rule's API is under a ``pallas`` module
    path: a module that imports none can reach them only through a workspace module that does),
    and whether it names a launch API."""

    imports: tuple[ImportFact, ...]
    mentions_pallas: bool  # an import of a module (or name) with "pallas" in it
    # "launch": it names pallas_call or core_map; "kernel": it calls, hands on or binds a `.kernel` or
    # imports a `kernel` (pl.kernel, plgpu.kernel: a launch only where that is Pallas's); "".
    launch_words: str

    @property
    def pallas_by_itself(self) -> bool:
        """Whether the text alone makes the module one that concerns Pallas."""
        return self.mentions_pallas or self.launch_words == "launch"


NO_FACTS = FileFacts((), False, "")
_LAUNCH_WORDS = re.compile(r"\b(?:pallas_call|core_map)\b")
# `.kernel` used as a launch API can be: called (`plgpu.kernel(...)`, a wrapper method
# `self.kernel(...)`), handed to a partial (`partial(pl.kernel, ...)`) or bound to a name
# (`_kernel = plgpu.kernel`). Not an attribute read (`self.kernel[...]`, `layer.kernel.value`:
# a flax parameter, in every model file).
_KERNEL_WORDS = re.compile(r"\.\s*kernel\s*[(,)]|=\s*[\w.]*\.\s*kernel\s*(?:#.*)?$", re.M)


def file_facts(text: str) -> FileFacts:
    imports = scan_imports(text)
    if ("pallas_call" in text or "core_map" in text) and _LAUNCH_WORDS.search(text):
        words = "launch"
    elif ("kernel" in text and _KERNEL_WORDS.search(text)) or \
            any(n == "kernel" for f in imports for n, _ in f.names):
        words = "kernel"
    else:
        words = ""
    imports_pallas = "pallas" in text and any(
        "pallas" in f.module or any("pallas" in n for n, _ in f.names) for f in imports)
    return FileFacts(imports, imports_pallas, words)


class FactsStore(Protocol):
    """Facts by module content, kept across runs (``check``'s on-disk cache); each module's
    import edges, by its content and the workspace's layout (:meth:`Program.layout_key`); and
    content hashes by path, which a file whose stat is unchanged gives without being read."""

    def known_digest(self, path: str) -> str | None: ...

    def digest(self, path: str, text: str) -> str: ...

    def get(self, digest: str) -> FileFacts | None: ...

    def put(self, digest: str, facts: FileFacts) -> None: ...

    def get_edges(self, layout: str, path: str, digest: str) -> set[str] | None: ...

    def put_edges(self, layout: str, path: str, digest: str, targets: set[str]) -> None: ...


def _reach(graph: dict[str, set[str]], seeds: set[str], depth: int) -> set[str]:
    """Everything ``depth`` steps of ``graph`` from ``seeds`` (seeds included), where a step
    into a package ``__init__`` is free: it only re-exports what the next step reaches."""
    best = {s: 0 for s in seeds}
    queue = deque((s, 0) for s in seeds)
    while queue:
        node, cost = queue.popleft()
        if cost > best.get(node, cost):
            continue
        for nxt in graph.get(node, ()):
            step = 0 if os.path.basename(nxt) == "__init__.py" else 1
            c = cost + step
            if c <= depth and c < best.get(nxt, depth + 1):
                best[nxt] = c
                (queue.appendleft if step == 0 else queue.append)((nxt, c))
    return set(best)


@dataclass(frozen=True)
class Resolved:
    path: str
    line: int  # 1-based line of the definition (0 for a module)
    kind: str  # jedi's type: "function", "class", "module", "statement", "instance", ...
    name: str


def package_root(path: Path) -> Path:
    """The folder above the outermost package (folder with __init__.py) holding ``path``."""
    # os.path's checks: False, not PermissionError, for what cannot be examined (a locked folder).
    d = path.parent if os.path.isfile(path) or path.suffix == ".py" else path
    while os.path.exists(d / "__init__.py") and d.parent != d:
        d = d.parent
    return d


class Program:
    def __init__(self, root: str | Path | None, read: Callable[[str], str | None] | None = None,
                 environment: str | None = None, facts_store: "FactsStore | None" = None,
                 caches: AnalysisCaches | None = None) -> None:
        """``read``: a module's text by path (None: from disk, through ``caches.disk``);
        ``caches``: the block parses and disk texts to use (an engine's, to share them with it;
        None: the program's own)."""
        self.root = Path(root).resolve() if root else None
        self.caches = caches if caches is not None else AnalysisCaches()
        self._read = read if read is not None else self.caches.disk.read
        self.environment = environment
        self._modules: dict[str, tuple[str, ModuleIndex, object]] = {}
        self._resolved: dict[tuple, Resolved | None] = {}
        # The modules a by-path resolution read (the package __init__s a re-export went
        # through): editing one of them drops the resolution.
        self._resolution_deps: dict[tuple, frozenset[str]] = {}
        self._project = None
        self._files: list[str] | None = None
        self._imports: dict[str, tuple[FileFacts, set[str]]] = {}  # path -> (facts, imported workspace paths)
        # path -> (its content hash from facts_store, its facts); the hash is None without a store
        self._facts: dict[str, tuple[str | None, FileFacts]] = {}
        self.facts_store = facts_store  # facts by content, kept across runs (``check``'s cache)
        self._layout: str | None = None  # layout_key(), once worked out ("" when it may not be used)
        self._importers_map: dict[str, set[str]] | None = None  # module -> modules importing it
        self._relevant: frozenset[str] | None = None  # modules that concern Pallas (concerns_pallas)
        self._known: tuple | None = None  # (files(), the same as a set of absolute paths)
        # Stats of the file tree, kept until files are created or deleted (files_changed):
        self._inside: dict[str, bool] = {}  # contains(), by path
        self._module_files: dict[tuple[Path, str], str | None] = {}  # (base, dotted) -> its file
        self._roots_cache: dict[str, list[Path]] = {}  # folder -> where its imports are looked up
        self._package_roots: dict[str, Path] = {}
        self._maybe_cache: dict[tuple[str, str], bool] = {}  # may_be_workspace
        self.prune = True  # modules that cannot concern Pallas are skipped (concerns_pallas)
        self.lock = threading.RLock()
        self.accessed: set[str] = set()  # modules consulted since the last reset (dependency tracking)
        self._tracking: list[set[str]] = []  # nested dependency trackers (one per unit being analysed)
        self._importers: dict[tuple[str, int], list[str]] = {}
        self._stale_imports: set[str] = set()  # changed modules whose imports are not re-read yet
        self.unit_cache: dict = {}  # (module, rules) -> what a module's launches find (engine)
        self.depth = [0]  # evaluation depth shared by every module's evaluator (bounds cross-module chains)
        self.notes: list[str] = []

    # --- modules ----------------------------------------------------------------------
    def contains(self, path: str | Path) -> bool:
        if self.root is None:
            return False
        key = os.fspath(path)
        got = self._inside.get(key)
        if got is None:
            try:
                Path(path).resolve().relative_to(self.root)
                got = True
            except (ValueError, OSError, RuntimeError):  # RuntimeError: a symlink loop (Python 3.11)
                got = False
            if len(self._inside) > 100_000:
                self._inside.clear()
            self._inside[key] = got
        return got

    def text(self, path: str) -> str | None:
        return self._read(path)

    def mentions(self, path: str, words: set[str]) -> bool:
        """Whether a module's text contains any of ``words`` (anywhere, even in a longer word:
        a cheap test before indexing it). The analysis depends on the text (as on its facts).
        Always True with ``prune`` off (the full analysis the pruned one is compared with)."""
        if not self.prune:
            return True
        self.note(os.path.abspath(path))
        text = self._read(path)
        return text is None or any(w in text for w in words)

    def load(self, path: str) -> tuple[ModuleIndex, object] | None:
        """The index and evaluator of a module's current text."""
        path = os.path.abspath(path)
        text = self._read(path)
        if text is None:
            return None
        with self.lock:
            self.accessed.add(path)
            for t in self._tracking:
                t.add(path)
            cached = self._modules.get(path)
            if cached is not None and cached[0] is text or (cached is not None and cached[0] == text):
                return cached[1], cached[2]
            index = ModuleIndex(text, path, program=self, cache=self.caches.parses)
            ev = Evaluator(index, program=self)
            if cached is not None:  # its text changed behind our back (read from disk)
                for key in [k for k, v in self.unit_cache.items() if k[0] == path or path in v[2]]:
                    del self.unit_cache[key]
                self._stale_imports.add(path)
                self._facts.pop(path, None)
                self._relevant = None
            self._modules[path] = (text, index, ev)
            return index, ev

    def index(self, path: str | None) -> ModuleIndex | None:
        if path is None:
            return None
        got = self.load(path)
        return got[0] if got else None

    def evaluator(self, path: str | None):
        if path is None:
            return None
        got = self.load(path)
        return got[1] if got else None

    def read_again(self, paths) -> None:
        """A cached result is used: the modules it consulted count as consulted now (by the
        trackers and ``accessed``), so whoever uses it is told when one of them changes."""
        if not paths:
            return
        with self.lock:
            self.accessed |= {p for p in paths if not p.startswith("?")}
            for t in self._tracking:
                t |= set(paths)

    def note(self, dependency: str) -> None:
        """Something an analysis depended on besides a module's index, for the trackers only:
        a module's scanned facts (its path), ``?importers\0path\0depth``, ``?concerns\0path``,
        or ``?jedi`` (jedi read files of its own: no cache can check what it depended on)."""
        if self._tracking:
            with self.lock:
                for t in self._tracking:
                    t.add(dependency)

    def track(self):
        """Record the modules consulted inside a ``with`` block."""
        program = self

        class _Track:
            def __enter__(self_inner):
                self_inner.deps = set()
                program._tracking.append(self_inner.deps)
                return self_inner.deps

            def __exit__(self_inner, *exc):
                # By identity: list.remove takes the first *equal* set, an outer tracker's
                # while both are still empty, and the outer one's exit then failed.
                program._tracking = [t for t in program._tracking if t is not self_inner.deps]
                return False

        return _Track()

    def forget(self, path: str) -> None:
        """A module changed: drop it and the cached results that consulted it (and only those)."""
        path = os.path.abspath(path)
        with self.lock:
            for key in [k for k, v in self.unit_cache.items() if k[0] == path or path in v[2]]:
                del self.unit_cache[key]
            self._modules.pop(path, None)
            # Every module's memoised caller lists may hold calls read from this one, or found
            # through a re-export it made: they are worked out again when next asked for.
            for _, _, ev in self._modules.values():
                ev._workspace_importers_changed()  # type: ignore[attr-defined]
            # The import graph only changes when this module's imports do: look now (a new
            # `import` here must reach the cached importer lists).
            # Resolutions made from this module, or landing in it, may have moved.
            d = os.path.dirname(path)
            for key in [k for k, v in self._resolved.items()
                        if k[0] == path or (k[0] == "path" and k[1] == d) or (v is not None and v.path == path)
                        or path in self._resolution_deps.get(k, ())]:
                del self._resolved[key]
                self._resolution_deps.pop(key, None)
            if os.path.basename(path) == "__init__.py":
                # Edges that went through this package's re-exports may have moved: the graph is
                # worked out again (from the scanned statements: stats, no indexing).
                self._imports.clear()
                self._importers_map = None
            # Its imports are looked at again before the import graph is next used (not on
            # every keystroke).
            self._stale_imports.add(path)
            self._facts.pop(path, None)
            self._relevant = None
            self._layout = ""  # (kept edges describe the texts on disk at the start: not any more)

    def files_changed(self) -> None:
        """Files were created or deleted: the module list and every resolution may differ."""
        with self.lock:
            self._files = None
            for cache in (self._inside, self._module_files, self._roots_cache, self._package_roots,
                          self._maybe_cache):
                cache.clear()
            self._importers_map = None
            self._relevant = None
            self._layout = ""
            self._imports.clear()
            self._facts.clear()
            self._resolved.clear()
            self._resolution_deps.clear()
            self._importers.clear()
            self.unit_cache.clear()
            for _, _, ev in self._modules.values():
                ev._workspace_importers_changed()  # type: ignore[attr-defined]  # (a new importer)

    # --- import resolution (jedi) ---------------------------------------------------------
    def _jedi_project(self):
        if self._project is None:
            import jedi

            guard_jedi_reads()  # jedi's own reads: regular files of bounded size only, never blocking
            self._project = jedi.Project(str(self.root) if self.root else os.getcwd(),
                                         environment_path=self.environment, load_unsafe_extensions=False,
                                         smart_sys_path=True)
        return self._project

    def may_be_workspace(self, module: str, from_path: str) -> bool:
        """Cheap test before asking jedi: relative imports, or a top-level name that is a
        package or module in the workspace (jax, numpy, functools... are not)."""
        if module.startswith("."):
            return True
        if self.root is None:
            return False
        top = module.split(".")[0]
        if top in KNOWN_EXTERNAL:
            return False
        key = (top, os.path.dirname(from_path))
        got = self._maybe_cache.get(key)
        if got is None:
            got = any(os.path.isdir(base / top) or os.path.isfile(base / f"{top}.py")
                      for base in self._roots_for(from_path))
            self._maybe_cache[key] = got
        return got

    def resolve_import(self, from_path: str, stmt: ast.AST, local: str, where=None) -> Resolved | None:
        """Where the name ``local`` bound by an import statement is defined, in the workspace.
        jedi reads the real module text and goes to the imported name (following re-exports
        through ``__init__.py``)."""
        if isinstance(stmt, ast.ImportFrom):
            module = "." * (stmt.level or 0) + (stmt.module or "")
            alias = next((a for a in stmt.names if (a.asname or a.name) == local), None)
            if alias is None and local != "*" and any(a.name == "*" for a in stmt.names):
                # A name a star import gives: where that module has it.
                if not self.star_exports(from_path, stmt, local):
                    return None
                src = self._star_module(from_path, stmt)
                return self._symbol(src, local) if src is not None else None
            if alias is None or not self.may_be_workspace(module or ".", from_path):
                return None
            width = len(alias.name)
        elif isinstance(stmt, ast.Import):
            alias = next((a for a in stmt.names if (a.asname or a.name.split(".")[0]) == local), None)
            if alias is None or not self.may_be_workspace(alias.name, from_path):
                return None
            # `import a.b` binds `a`; `import a.b as c` binds the module a.b.
            width = len(alias.name) if alias.asname else len(alias.name.split(".")[0])
        else:
            return None
        # The fast path: a module file under the workspace roots, found by name (a stat or two).
        # jedi decides the rest (namespace packages, sys.path set-ups, odd layouts).
        fast = self._resolve_by_path(from_path, stmt, alias)
        if fast is not None:
            return fast
        if self._refused_by_path(from_path, stmt, alias):
            # The module is there but our reader refuses it (too large, not a regular file):
            # jedi would read it whole in its own process.
            self.notes.append(f"import of {local} in {from_path} not followed: its module is not read")
            return None
        text = self._read(from_path)
        got = self.load(from_path)
        if text is None or got is None or getattr(alias, "lineno", None) is None:
            return None
        index = got[0]
        bp = where.block if where is not None and hasattr(where, "block") else None
        span = index.span(alias, where) if bp is not None else None
        if span is None:
            return None
        # An absolute import means the same in every module of a package tree: asked of jedi once.
        relative = isinstance(stmt, ast.ImportFrom) and stmt.level
        key = (from_path if relative else str(self._package_root(from_path)), _stmt_key(stmt), local)
        self.note("?jedi")
        if key in self._resolved:
            return self._resolved[key]
        res = None
        try:
            import jedi

            script = jedi.Script(text, path=from_path, project=self._jedi_project())
            for d in script.goto(span.line, span.col + max(width - 1, 0), follow_imports=True):
                if d.module_path is not None and self.contains(d.module_path) and str(d.module_path).endswith(".py"):
                    res = Resolved(os.path.abspath(str(d.module_path)), d.line or 0, d.type, d.name)
                    break
        except Exception as exc:  # noqa: BLE001 - an unresolvable import is just not followed
            self.notes.append(f"import of {local} in {from_path} not followed: {type(exc).__name__}")
        self._resolved[key] = res
        return res

    def _refused_by_path(self, from_path: str, stmt: ast.AST, alias: ast.alias) -> bool:
        """Whether the module an import names is found by path but our reader refuses it."""
        if isinstance(stmt, ast.ImportFrom):
            dotted = stmt.module or ""
            bases = self._from_bases(from_path, stmt.level or 0)
        else:
            dotted = alias.name if alias.asname else alias.name.split(".")[0]
            bases = self._roots_for(from_path)
        for base in bases:
            mod = self._module_file(base, dotted)
            if mod is not None:
                self.note(os.path.abspath(mod))
                return self.contains(mod) and self._read(mod) is None
        return False

    def _module_file(self, base: Path, dotted: str) -> str | None:
        key = (base, dotted)
        if key in self._module_files:
            return self._module_files[key]
        got = self._module_files[key] = self._module_file_now(base, dotted)
        return got

    @staticmethod
    def _is_namespace(base: Path, dotted: str) -> bool:
        """Whether ``dotted`` under ``base`` is a folder a ``from`` import can take submodules
        from without an ``__init__.py`` (a namespace package)."""
        return bool(dotted) and os.path.isdir(base.joinpath(*dotted.split(".")))

    def _module_file_now(self, base: Path, dotted: str) -> str | None:
        p = base.joinpath(*dotted.split(".")) if dotted else base
        if dotted and os.path.isfile(p.with_suffix(".py")):  # (never raises: a locked folder is False)
            return str(p.with_suffix(".py"))
        if os.path.isfile(p / "__init__.py"):
            return str(p / "__init__.py")
        return None

    def _roots_for(self, from_path: str) -> list[Path]:
        folder = os.path.dirname(from_path)
        got = self._roots_cache.get(folder)
        if got is None:
            got = []
            for r in (self.root, (self.root / "src") if self.root else None, self._package_root(from_path)):
                if r is not None and r not in got:
                    got.append(r)
            self._roots_cache[folder] = got
        return got

    def _package_root(self, from_path: str) -> Path:
        folder = os.path.dirname(from_path)
        got = self._package_roots.get(folder)
        if got is None:
            got = self._package_roots[folder] = package_root(Path(from_path))
        return got

    def _resolve_by_path(self, from_path: str, stmt: ast.AST, alias: ast.alias) -> Resolved | None:
        key = ("path", os.path.dirname(from_path), _stmt_key(stmt), alias.name)
        if key in self._resolved:
            self.read_again(self._resolution_deps.get(key, ()))  # what it read counts as read now
            return self._resolved[key]
        with self.track() as deps:
            res = self._resolve_by_path_now(from_path, stmt, alias)
        self._resolved[key] = res
        self._resolution_deps[key] = frozenset(deps)
        return res

    def _resolve_by_path_now(self, from_path: str, stmt: ast.AST, alias: ast.alias) -> Resolved | None:
        res = None
        if isinstance(stmt, ast.ImportFrom):
            for base in self._from_bases(from_path, stmt.level or 0):
                mod = self._module_file(base, stmt.module or "")
                if mod is None:
                    if self._is_namespace(base, stmt.module or ""):
                        # A namespace package (a folder without __init__.py): only its submodules.
                        sub = self._module_file(base, f"{stmt.module}.{alias.name}")
                        if sub is not None:
                            res = Resolved(os.path.abspath(sub), 0, "module", alias.name)
                            break
                    continue
                sub = self._module_file(base, ".".join(x for x in ((stmt.module or ""), alias.name) if x))
                # `from pkg import x` reads the attribute x of pkg after its __init__ ran: a name
                # the __init__ binds (defined there, or re-exported: `from .x import x` replaces
                # the submodule attribute with the function) wins over a submodule x.py. The
                # __init__'s own `from . import x` and a name it does not bind are that submodule.
                own_package = os.path.abspath(mod) == os.path.abspath(from_path)
                if sub is not None and (own_package or not self._binds(mod, alias.name)):
                    res = Resolved(os.path.abspath(sub), 0, "module", alias.name)
                else:
                    res = self._symbol(mod, alias.name)
                break
        elif isinstance(stmt, ast.Import):
            target = alias.name if alias.asname else alias.name.split(".")[0]
            for base in self._roots_for(from_path):
                mod = self._module_file(base, target)
                if mod is not None:
                    res = Resolved(os.path.abspath(mod), 0, "module", target.rsplit(".", 1)[-1])
                    break
        if res is not None and not self.contains(res.path):
            res = None
        return res

    def attribute(self, module_path: str, name: str) -> Resolved | None:
        """What ``module.name`` is, for a workspace module: a name it binds (a re-export
        followed to where it lives), one a star import gives it, or else, for a package,
        its submodule ``name`` (``import pkg.kernels`` then ``pkg.kernels.build``)."""
        path = os.path.abspath(module_path)
        got = self._symbol(path, name)
        if got is not None or os.path.basename(path) != "__init__.py":
            return got
        sub = self._module_file(Path(path).parent, name)
        if sub is not None and self.contains(sub):
            return Resolved(os.path.abspath(sub), 0, "module", name)
        return None

    def _binds(self, module_path: str, name: str) -> bool:
        """Whether a module binds ``name`` at its top level (by itself or through a star import)."""
        path = os.path.abspath(module_path)
        index = self.index(path)
        if index is None:
            return False
        return bool(index.scope.bindings.get(name)) or self._star_source(path, index, name) is not None

    def _star_source(self, path: str, index: ModuleIndex, name: str) -> str | None:
        """The workspace module a ``from m import *`` of this module takes ``name`` from (the
        last such import that exports it: its ``__all__``, or its public names), or None."""
        for b in reversed(index.scope.bindings.get("*", [])):
            stmt = b.stmt
            if not isinstance(stmt, ast.ImportFrom) or self._reexport_depth >= 8:
                continue
            module = "." * (stmt.level or 0) + (stmt.module or "")
            if not self.may_be_workspace(module or ".", path):
                continue
            self._reexport_depth += 1
            try:
                src = self._star_module(path, stmt)
                if src is not None and src != path and name in self._star_exports(src):
                    return src
            finally:
                self._reexport_depth -= 1
        return None

    def star_exports(self, from_path: str, stmt: ast.ImportFrom, name: str) -> bool:
        """Whether ``from m import *`` (in ``from_path``) binds ``name`` from a workspace module."""
        module = "." * (stmt.level or 0) + (stmt.module or "")
        if not self.may_be_workspace(module or ".", from_path):
            return False
        src = self._star_module(from_path, stmt)
        return src is not None and src != os.path.abspath(from_path) and name in self._star_exports(src)

    def _from_bases(self, from_path: str, level: int) -> list[Path]:
        """The folders a ``from ... import`` with ``level`` leading dots is looked up in: its
        package for a relative one."""
        if not level:
            return self._roots_for(from_path)
        base = Path(from_path).parent
        for _ in range(level - 1):
            base = base.parent
        return [base]

    def _star_module(self, from_path: str, stmt: ast.ImportFrom) -> str | None:
        for base in self._from_bases(from_path, stmt.level or 0):
            mod = self._module_file(base, stmt.module or "")
            if mod is not None:
                return os.path.abspath(mod) if self.contains(mod) else None
        return None

    def _star_exports(self, path: str) -> set[str]:
        """The names ``from <module> import *`` binds: the literal ``__all__`` when the module
        has one, else its top-level names not starting with an underscore (with what its own
        star imports export)."""
        index = self.index(path)
        if index is None:
            return set()
        declared = _literal_all(index)
        if declared is not None:
            return declared
        names = {n for n in index.scope.bindings if n != "*" and not n.startswith("_")}
        for b in index.scope.bindings.get("*", []):
            if isinstance(b.stmt, ast.ImportFrom) and self._reexport_depth < 8:
                self._reexport_depth += 1
                try:
                    src = self._star_module(path, b.stmt)
                    if src is not None and src != path:
                        names |= self._star_exports(src)
                finally:
                    self._reexport_depth -= 1
        return names

    def _symbol(self, module_path: str, name: str) -> Resolved | None:
        """A name in a module; a re-export (``from .x import name`` in the module) is followed by
        the evaluator through that module's own import binding, and a name the module gets from
        ``from .x import *`` is looked up in that module."""
        path = os.path.abspath(module_path)
        index = self.index(path)
        if index is None:
            return None
        bs = index.scope.bindings.get(name)
        if not bs:
            src = self._star_source(path, index, name)
            if src is None:
                return None
            self._reexport_depth += 1
            try:
                return self._symbol(src, name)
            finally:
                self._reexport_depth -= 1
        b = bs[-1]
        if b.kind == "import" and b.stmt is not None and self._reexport_depth < 8:
            # A re-export (`from .kernels import build` in a package): where it really lives.
            self._reexport_depth += 1
            try:
                final = self.resolve_import(path, b.stmt, name, b.scope)
            finally:
                self._reexport_depth -= 1
            if final is not None:
                return final
        node = b.node if b.kind in ("def", "class") else b.stmt
        line = index.line_of(node, b.scope) if node is not None else 0
        kind = {"def": "function", "class": "class", "import": "import"}.get(b.kind, "statement")
        return Resolved(path, line, kind, name)

    _reexport_depth = 0

    # --- the import graph -------------------------------------------------------------------
    def files(self) -> list[str]:
        if self._files is not None:
            return self._files
        out: list[str] = []
        if self.root is not None:
            for f in walk_python_files(self.root):
                out.append(f)
                if len(out) >= MAX_WORKSPACE_FILES:
                    self.notes.append(f"workspace has more than {MAX_WORKSPACE_FILES} Python files; "
                                      "the rest are not followed")
                    break
        self._files = out
        return out

    def facts(self, path: str) -> FileFacts | None:
        """What a module's text says about imports and Pallas (:func:`file_facts`), cached by
        path (and by content in ``facts_store``, which ``check`` keeps on disk: there a file
        whose stat is unchanged is not even read)."""
        path = os.path.abspath(path)
        self.note(path)
        got = self._facts.get(path)
        if got is not None:  # (until the module is reported changed: forget, files_changed)
            return got[1]
        store = self.facts_store if self._on_disk(path) else None
        digest = store.known_digest(path) if store is not None else None
        facts = store.get(digest) if digest is not None else None  # type: ignore[union-attr]
        if facts is None:
            text = self._read(path)
            if text is None:
                return None
            if store is not None:
                digest = store.digest(path, text)
                facts = store.get(digest)
            if facts is None:
                facts = file_facts(text)
                if store is not None:
                    store.put(digest, facts)  # type: ignore[arg-type]
        self._facts[path] = (digest, facts)
        return facts

    def digest(self, path: str) -> str | None:
        """A module's content hash (None where it cannot be read), from ``facts_store``
        without reading the file where its stat is unchanged; without a store, the hash of its
        text."""
        path = os.path.abspath(path)
        store = self.facts_store if self._on_disk(path) else None
        if store is not None:
            got = self._facts.get(path)
            if got is not None and got[0] is not None:
                return got[0]
            known = store.known_digest(path)
            if known is not None:
                return known
        text = self._read(path)
        if text is None:
            return None
        if store is not None:
            return store.digest(path, text)
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

    def _on_disk(self, path: str) -> bool:
        """Whether a module reads as the file on disk (not a text the reader holds instead, such
        as ``check --fix``'s fixed texts): only then may a hash kept by stat stand for it."""
        overrides = getattr(self._read, "overrides", None)
        return overrides is None or not overrides(path)

    def known_facts(self) -> dict[str, FileFacts]:
        """The facts of every module scanned so far, by path (for :meth:`seed_facts`)."""
        with self.lock:
            return {p: f for p, (_, f) in self._facts.items()}

    def seed_facts(self, facts: dict[str, FileFacts]) -> None:
        """Take the facts another program scanned from the same files (``check -j``'s workers
        get the parent's): they are not scanned again."""
        with self.lock:
            for p, f in facts.items():
                self._facts.setdefault(p, (None, f))  # type: ignore[arg-type]

    def imports_of(self, path: str) -> set[str]:
        """Workspace modules a module imports: each import statement of its text (at any depth,
        :mod:`import_scan`) resolved by path, ``from pkg import name`` through the re-exports
        of ``pkg``'s ``__init__`` to the module that defines ``name``. Never more than a few
        stats per import: no module is indexed and jedi is not asked (an import the paths do
        not decide adds no edge; the analysis itself still asks jedi)."""
        path = os.path.abspath(path)
        facts = self.facts(path)
        if facts is None:
            return set()
        cached = self._imports.get(path)
        if cached is not None and cached[0] is facts:
            return cached[1]
        digest = self._facts[path][0]  # (None without a store, and for facts seeded by -j's parent)
        layout = self.layout_key() if digest is not None else None
        store = self.facts_store if layout else None
        got = store.get_edges(layout, path, digest) if store is not None else None  # type: ignore[arg-type]
        if got is None:
            got = set()
            for fact in facts.imports:
                got |= self._fact_targets(path, fact, 0)
            got.discard(path)
            if store is not None:
                store.put_edges(layout, path, digest, got)  # type: ignore[arg-type]
        self._set_imports(path, facts, got)
        return got

    def layout_key(self) -> str | None:
        """What every module's import edges depend on besides its own text, for the on-disk
        cache: the workspace root, its Python files (where a module name leads) and the texts of
        its package ``__init__``s (what they re-export). None without a facts store, or once
        the workspace has changed during this run (the server's program: nothing is kept)."""
        if self.facts_store is None or self.root is None:
            return None
        if self._layout is None:
            h = hashlib.blake2b(str(self.root).encode("utf-8", "surrogatepass"), digest_size=16)
            for f in sorted(os.path.abspath(f) for f in self.files()):
                h.update(f.encode("utf-8", "surrogatepass") + b"\0")
                if os.path.basename(f) == "__init__.py":
                    h.update((self.digest(f) or "-").encode())
            self._layout = h.hexdigest()
        return self._layout or None

    def _fact_targets(self, from_path: str, fact: ImportFact, depth: int) -> set[str]:
        """The workspace files an import statement runs or takes names from."""
        out: set[str] = set()
        if fact.is_from:
            module = "." * fact.level + fact.module
            if not self.may_be_workspace(module or ".", from_path):
                return out
            bases = self._from_bases(from_path, fact.level)
            for base in bases:
                mod = self._module_file(base, fact.module)
                namespace = mod is None and self._is_namespace(base, fact.module)
                if mod is None and not namespace:
                    continue
                package = mod is not None and os.path.basename(mod) == "__init__.py"
                for name, _ in fact.names:
                    sub = None if name == "*" else \
                        self._module_file(base, ".".join(x for x in (fact.module, name) if x))
                    reexported = set()
                    if sub is None and package and name != "*" and depth < 8:
                        reexported = self._reexported_from(os.path.abspath(mod), name, depth + 1)
                    if sub is not None:  # `from pkg import submodule`
                        targets = {sub}
                    elif reexported:  # `from pkg import name` that pkg's __init__ takes from .x
                        targets = reexported
                    else:  # a name the module itself binds, or all it exports (`*`)
                        targets = {mod} if mod is not None else set()
                    out |= {os.path.abspath(t) for t in targets if self.contains(t)}
                if not namespace:
                    break  # (the first folder on the path that has the module is the one imported)
            return out
        for name, _ in fact.names:
            if not self.may_be_workspace(name, from_path):
                continue
            parts = name.split(".")
            for base in self._roots_for(from_path):
                found = [self._module_file(base, ".".join(parts[:k])) for k in range(1, len(parts) + 1)]
                if not any(found):
                    continue
                out |= {os.path.abspath(f) for f in found if f is not None and self.contains(f)}
                break
        return out

    def _reexported_from(self, init: str, name: str, depth: int) -> set[str]:
        """Where a package's ``__init__`` takes ``name`` from (``from .x import name``, or any
        module it star-imports): the modules ``from pkg import name`` really reaches."""
        facts = self.facts(init)
        out: set[str] = set()
        if facts is None:
            return out
        explicit = False
        for fact in facts.imports:
            if fact.is_from and any((a or n) == name or n == "*" for n, a in fact.names):
                original = next((n for n, a in fact.names if (a or n) == name), None)
                explicit = explicit or original is not None
                narrowed = ImportFact(True, fact.module, fact.level,
                                      ((original, None),) if original is not None else (("*", None),))
                out |= self._fact_targets(init, narrowed, depth)
        if out and not explicit:
            out.add(init)  # (only star imports might give it: the __init__ may define it itself)
        return out

    def imports_with_packages(self, path: str, depth: int = 3) -> set[str]:
        """The modules a module imports, and for each package it imports, what that package's
        ``__init__`` imports (up to ``depth`` levels): ``import kernels`` reaches the launch in
        kernels/square.py through ``kernels.square(...)`` when the __init__ re-exports it."""
        out = set(self.imports_of(path))
        frontier = [p for p in out if os.path.basename(p) == "__init__.py"]
        for _ in range(depth):
            nxt = []
            for init in frontier:
                for p in self.imports_of(init):
                    if p not in out and p != path:
                        out.add(p)
                        if os.path.basename(p) == "__init__.py":
                            nxt.append(p)
            frontier = nxt
        return out

    def _set_imports(self, path: str, facts: FileFacts, out: set[str]) -> None:
        old = self._imports.get(path)
        old_edges = old[1] if old is not None else None
        self._imports[path] = (facts, out)
        if old_edges != out and self._importers_map is not None:
            for target in (old_edges or set()) - out:
                self._importers_map.get(target, set()).discard(path)
            for target in out:
                self._importers_map.setdefault(target, set()).add(path)
            self._importers.clear()

    def _importer_map(self) -> dict[str, set[str]]:
        """Every workspace module's importers (the import graph, inverted): built once from each
        file's import statements, then kept up to date for the modules reported changed."""
        with self.lock:
            if self._importers_map is None:
                self._importers_map = {}
                for f in self.files():
                    f = os.path.abspath(f)
                    for target in self.imports_of(f):
                        self._importers_map.setdefault(target, set()).add(f)
                self._stale_imports.clear()
            stale, self._stale_imports = self._stale_imports, set()
            for f in sorted(stale):
                self.imports_of(f)  # (updates the map through _set_imports)
            return self._importers_map

    def importers_of(self, path: str, depth: int = 3) -> list[str]:
        """Modules that import ``path``, directly or through up to ``depth`` steps (a step
        through a package ``__init__`` that re-exports it is not counted)."""
        path = os.path.abspath(path)
        self.note(f"?importers\0{path}\0{depth}")
        graph = self._importer_map()
        key = (path, depth)
        if key in self._importers:
            return self._importers[key]
        found = _reach(graph, {path}, depth)
        found.discard(path)
        # An importer that does not concern Pallas launches nothing and decides nothing.
        self._importers[key] = sorted(f for f in found if self.concerns_pallas(f))
        return self._importers[key]

    def concerns_pallas(self, path: str) -> bool:
        """Whether analysing a module can find anything: it imports Pallas or can launch a
        kernel itself (:class:`FileFacts`), or it imports, through a few steps, a module that
        can (a caller that decides the mode), or one of those imports it (a helper a kernel
        calls). Decided from the files' texts and import statements alone; a module for which
        this is False has no launch, reaches none and is reached by none. Always True with
        ``prune`` off."""
        if not self.prune:
            return True
        path = os.path.abspath(path)
        self.note(f"?concerns\0{path}")
        if path not in self._known_files():
            return True  # (beyond the workspace walk: analysed as before)
        return path in self.relevant()

    def can_launch(self, path: str) -> bool:
        """Whether a module's own code can build a launch (the seeds of :meth:`relevant`): it
        names ``pallas_call`` or ``core_map``, or a ``.kernel`` or ``kernel`` where that can be
        Pallas's (it, or a module it imports, imports Pallas). A module for which this is False
        gives the rules nothing of its own; it may still decide the mode of a launch elsewhere,
        and that launch's analysis reads it as a caller. Always True with ``prune`` off."""
        if not self.prune:
            return True
        facts = self.facts(path) or NO_FACTS  # (a file that cannot be read launches nothing)
        if facts.launch_words == "launch":
            return True
        return bool(facts.launch_words) and (facts.mentions_pallas or any(
            (self.facts(t) or NO_FACTS).mentions_pallas for t in self.imports_of(path)))

    def text_concerns_pallas(self, path: str, text: str) -> bool:
        """:meth:`concerns_pallas` for a text the workspace walk does not list (a notebook's
        joined cells): it can launch, or it imports a module that concerns Pallas."""
        if not self.prune:
            return True
        facts = file_facts(text)
        if facts.pallas_by_itself:
            return True
        path = os.path.abspath(path)
        relevant = self.relevant()
        return any(t in relevant for fact in facts.imports for t in self._fact_targets(path, fact, 0))

    def _known_files(self) -> frozenset[str]:
        if self._known is None or self._known[0] is not self._files:
            self._known = (self._files, frozenset(os.path.abspath(f) for f in self.files()))
        return self._known[1]

    def relevant(self) -> frozenset[str]:
        with self.lock:
            graph = self._importer_map()
            if self._relevant is None:
                files = {os.path.abspath(f) for f in self.files()}
                facts = {f: self.facts(f) or NO_FACTS for f in files}
                pallas = {f for f in files if facts[f].mentions_pallas}
                seeds = {f for f in files if self.can_launch(f)}
                # Callers: modules that import a Pallas module (launchers, wrappers, tests).
                callers = _reach(graph, seeds, RELEVANCE_DEPTH)
                forward = {f: self.imports_of(f) for f in self._imports}
                # Helpers: what those modules import (a kernel body's helpers, a mode constant).
                helpers = _reach(forward, callers, RELEVANCE_DEPTH)
                # And every module that imports Pallas (it is analysed, if only for its syntax).
                self._relevant = frozenset(callers | helpers | pallas)
                for f in files - self._relevant:
                    self.caches.disk.release(f)
            return self._relevant

    def reset_accessed(self) -> set[str]:
        with self.lock:
            got, self.accessed = self.accessed, set()
            return got


def _literal_all(index: ModuleIndex) -> set[str] | None:
    """A module's ``__all__`` when every top-level binding of it is a literal list or tuple of
    strings (``__all__ += [...]`` included); None when it has none or builds it otherwise."""
    bs = index.scope.bindings.get("__all__")
    if not bs:
        return None
    names: set[str] = set()
    for b in bs:
        value = b.node if b.kind in ("assign", "aug") else None
        if b.kind == "aug" and isinstance(b.stmt, ast.AugAssign):
            value = b.stmt.value
        if not isinstance(value, (ast.List, ast.Tuple)) or \
                not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts):
            return None
        if b.kind == "assign":
            names = set()
        names |= {e.value for e in value.elts}  # type: ignore[attr-defined]
    return names


def _stmt_key(stmt: ast.AST) -> tuple:
    return (type(stmt).__name__, getattr(stmt, "module", None), getattr(stmt, "level", 0),
            tuple((a.name, a.asname) for a in getattr(stmt, "names", ())))


def common_root(paths: Iterable[str]) -> Path | None:
    ps = [Path(p).resolve() for p in paths]
    if not ps:
        return None
    dirs = [p if p.is_dir() else p.parent for p in ps]
    root = Path(os.path.commonpath([str(d) for d in dirs]))
    return package_root(root / "x.py") if (root / "__init__.py").exists() else root


PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")


def workspace_root(paths: Iterable[str]) -> Path | None:
    """The folder ``check`` follows imports in: the nearest folder at or above the paths'
    common root that holds a project file (pyproject.toml, setup.py, setup.cfg), so a check of
    one file sees the same importers and helpers as a check of the whole project; else the
    common root (:func:`common_root`)."""
    root = common_root(paths)
    if root is None:
        return None
    for d in (root, *root.parents):
        if any(os.path.isfile(d / m) for m in PROJECT_MARKERS):
            return d
    return root

