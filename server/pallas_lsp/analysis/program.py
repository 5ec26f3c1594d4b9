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
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from .module import ModuleIndex

MAX_WORKSPACE_FILES = 5000
SKIP_DIRS = {"__pycache__", "node_modules", "site-packages", "build", "dist"}


def read_file(path: str) -> str | None:
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class Resolved:
    path: str
    line: int  # 1-based line of the definition (0 for a module)
    kind: str  # jedi's type: "function", "class", "module", "statement", "instance", ...
    name: str


def package_root(path: Path) -> Path:
    """The folder above the outermost package (folder with __init__.py) holding ``path``."""
    d = path.parent if path.is_file() or path.suffix == ".py" else path
    while (d / "__init__.py").exists() and d.parent != d:
        d = d.parent
    return d


class Program:
    def __init__(self, root: str | Path | None, read: Callable[[str], str | None] = read_file,
                 environment: str | None = None) -> None:
        self.root = Path(root).resolve() if root else None
        self._read = read
        self.environment = environment
        self._modules: dict[str, tuple[str, ModuleIndex, object]] = {}
        self._resolved: dict[tuple, Resolved | None] = {}
        self._project = None
        self._files: list[str] | None = None
        self._imports: dict[str, tuple[str, set[str]]] = {}  # path -> (text, imported workspace paths)
        self.lock = threading.RLock()
        self.accessed: set[str] = set()  # modules consulted since the last reset (dependency tracking)
        self.unit_cache: dict = {}  # (module, rules) -> what a module's launches find (engine)
        self.notes: list[str] = []

    # --- modules ----------------------------------------------------------------------
    def contains(self, path: str | Path) -> bool:
        if self.root is None:
            return False
        try:
            Path(path).resolve().relative_to(self.root)
            return True
        except ValueError:
            return False

    def text(self, path: str) -> str | None:
        return self._read(path)

    def load(self, path: str) -> tuple[ModuleIndex, object] | None:
        """The index and evaluator of a module's current text."""
        from .evaluate import Evaluator

        path = os.path.abspath(path)
        text = self._read(path)
        if text is None:
            return None
        with self.lock:
            self.accessed.add(path)
            cached = self._modules.get(path)
            if cached is not None and cached[0] is text or (cached is not None and cached[0] == text):
                return cached[1], cached[2]
            index = ModuleIndex(text, path, program=self)
            ev = Evaluator(index, program=self)
            if cached is not None:
                self.unit_cache.clear()  # its text changed behind our back (read from disk)
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

    def forget(self, path: str) -> None:
        """A module changed: drop what depends on it (results across modules are transitive,
        so every unit's cached findings go; indices of other modules stay)."""
        with self.lock:
            self.unit_cache.clear()
            self._modules.pop(os.path.abspath(path), None)
            self._imports.pop(os.path.abspath(path), None)
            self._resolved.clear()
            self._files = None

    # --- import resolution (jedi) ---------------------------------------------------------
    def _jedi_project(self):
        if self._project is None:
            import jedi

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
        for base in {self.root, self.root / "src", package_root(Path(from_path))}:
            if (base / top).is_dir() or (base / f"{top}.py").is_file():
                return True
        return False

    def resolve_import(self, from_path: str, stmt: ast.AST, local: str, where=None) -> Resolved | None:
        """Where the name ``local`` bound by an import statement is defined, in the workspace.
        jedi reads the real module text and goes to the imported name (following re-exports
        through ``__init__.py``)."""
        if isinstance(stmt, ast.ImportFrom):
            module = "." * (stmt.level or 0) + (stmt.module or "")
            alias = next((a for a in stmt.names if (a.asname or a.name) == local), None)
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
        text = self._read(from_path)
        got = self.load(from_path)
        if text is None or got is None or getattr(alias, "lineno", None) is None:
            return None
        index = got[0]
        bp = where.block if where is not None and hasattr(where, "block") else None
        span = index.span(alias, where) if bp is not None else None
        if span is None:
            return None
        key = (from_path, hash(text), span.line, span.col, local)
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

    # --- the import graph -------------------------------------------------------------------
    def files(self) -> list[str]:
        if self._files is not None:
            return self._files
        out: list[str] = []
        if self.root is not None:
            for dirpath, dirs, names in os.walk(self.root):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS
                                 and not (Path(dirpath) / d / "pyvenv.cfg").exists())
                for n in sorted(names):
                    if n.endswith(".py"):
                        out.append(os.path.join(dirpath, n))
                        if len(out) >= MAX_WORKSPACE_FILES:
                            self.notes.append(f"workspace has more than {MAX_WORKSPACE_FILES} Python files; "
                                              "the rest are not followed")
                            self._files = out
                            return out
        self._files = out
        return out

    def imports_of(self, path: str) -> set[str]:
        """Workspace modules a module imports (resolved with jedi, cached by text)."""
        path = os.path.abspath(path)
        text = self._read(path)
        if text is None:
            return set()
        cached = self._imports.get(path)
        if cached is not None and cached[0] == text:
            return cached[1]
        if not any(k in text for k in ("import ",)):
            self._imports[path] = (text, set())
            return set()
        got = self.load(path)
        out: set[str] = set()
        if got is not None:
            index = got[0]
            for name, bs in index.scope.bindings.items():
                for b in bs:
                    if b.kind == "import" and b.stmt is not None:
                        r = self.resolve_import(path, b.stmt, name, b.scope)
                        if r is not None:
                            out.add(r.path)
        self._imports[path] = (text, out)
        return out

    def importers_of(self, path: str, depth: int = 3) -> list[str]:
        """Modules that import ``path``, directly or through up to ``depth`` steps."""
        path = os.path.abspath(path)
        base = os.path.splitext(os.path.basename(path))[0]
        pkg = os.path.basename(os.path.dirname(path))
        frontier = {path}
        found: list[str] = []
        for _ in range(depth):
            new = set()
            for f in self.files():
                f = os.path.abspath(f)
                if f in frontier or f in found:
                    continue
                text = self._read(f) or ""
                names = {os.path.splitext(os.path.basename(p))[0] for p in frontier}
                names.add(base)
                names.add(pkg)
                if not any(n and n in text for n in names):
                    continue  # cannot mention any of them: skip without parsing
                if self.imports_of(f) & frontier:
                    new.add(f)
            if not new:
                break
            found += sorted(new)
            frontier = new
        return found

    def reset_accessed(self) -> set[str]:
        with self.lock:
            got, self.accessed = self.accessed, set()
            return got


def common_root(paths: Iterable[str]) -> Path | None:
    ps = [Path(p).resolve() for p in paths]
    if not ps:
        return None
    dirs = [p if p.is_dir() else p.parent for p in ps]
    root = Path(os.path.commonpath([str(d) for d in dirs]))
    return package_root(root / "x.py") if (root / "__init__.py").exists() else root
