"""Which layer of the package may import which (docs/architecture.md): the analysis core stays pure
(no rules, records or editor code), records are data and matching only, the rules never reach for
an adapter, and only the CLI (`pallas-lsp serve`) starts the language server. Every import counts,
the ones inside functions too: a lazy import is still a dependency."""
import ast
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "server" / "pallas_lsp"

# layer -> the layers it must not import. A layer is a subpackage (analysis, lsp, records, rules)
# or a top-level module (cli, checker, ...).
FORBIDDEN = {
    "analysis": {"lsp", "rules", "records", "cli", "checker", "parallel", "present", "what_if", "explain"},
    "records": {"analysis", "rules", "lsp", "cli", "checker"},
    "rules": {"lsp", "cli", "checker", "parallel", "present"},
}
ONLY_IMPORTED_BY = {"lsp": {"lsp", "cli"}}


def layer_of(parts: list[str]) -> str:
    """``["pallas_lsp", "analysis", "engine"]`` -> ``analysis``; the package itself is ``pallas_lsp``."""
    return parts[1] if len(parts) > 1 else parts[0]


def imported_modules(path: Path, package_dir: Path) -> list[tuple[int, list[str]]]:
    """(line, dotted name as parts) of every import in one file, relative imports resolved."""
    parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
    package = parts[:-1]  # a module's package; for __init__ that is the package itself
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                found.append((node.lineno, (node.module or "").split(".")))
                continue
            base = package[:len(package) - node.level + 1]
            if node.module:
                found.append((node.lineno, base + node.module.split(".")))
            else:  # `from . import x`: x may be a module of its own
                found += [(node.lineno, base + [alias.name]) for alias in node.names]
    return found


def forbidden_edges(package_dir: Path) -> list[str]:
    name = package_dir.name
    problems = []
    for path in sorted(package_dir.rglob("*.py")):
        relative = path.relative_to(package_dir)
        if relative.parts[0] == "kinds" and "examples" in relative.parts:  # programs analysed, never imported
            continue
        importer = layer_of([name, *relative.with_suffix("").parts])
        for line, target in imported_modules(path, package_dir):
            if target[0] != name or len(target) < 2:
                continue
            imported = layer_of(target)
            if imported == importer:
                continue
            allowed_importers = ONLY_IMPORTED_BY.get(imported)
            if imported in FORBIDDEN.get(importer, ()) or (allowed_importers and importer not in allowed_importers):
                problems.append(f"{relative}:{line}: {importer} imports {'.'.join(target)}")
    return problems


def test_the_package_keeps_its_layers():
    assert forbidden_edges(PACKAGE) == []


@pytest.mark.parametrize("where, text, expected", [
    ("analysis/engine.py", "from ..rules import base\n", "analysis imports pallas_lsp.rules"),
    ("analysis/engine.py", "def f():\n    from pallas_lsp.records import Record\n",
     "analysis imports pallas_lsp.records"),
    ("analysis/__init__.py", "from .. import lsp\n", "analysis imports pallas_lsp.lsp"),
    ("records/data.py", "from ..analysis.engine import Engine\n", "records imports pallas_lsp.analysis.engine"),
    ("checker.py", "import pallas_lsp.lsp.server\n", "checker imports pallas_lsp.lsp.server"),
])
def test_a_forbidden_import_is_found(tmp_path, where, text, expected):
    package = tmp_path / "pallas_lsp"
    for module in ("__init__.py", "analysis/__init__.py", "analysis/engine.py", "rules/__init__.py",
                   "records/__init__.py", "lsp/__init__.py", "lsp/server.py", "cli.py", "checker.py"):
        (package / module).parent.mkdir(parents=True, exist_ok=True)
        (package / module).write_text("")
    (package / where).parent.mkdir(parents=True, exist_ok=True)
    (package / where).write_text(text)
    (problem,) = forbidden_edges(package)
    assert problem.endswith(expected) and problem.startswith(where)


def test_allowed_imports_are_quiet(tmp_path):
    package = tmp_path / "pallas_lsp"
    files = {"analysis/engine.py": "from . import blocks\nfrom ..files import read\n",
             "rules/base.py": "from ..analysis import engine\nfrom ..records import Record\n",
             "cli.py": "from .lsp import server\nfrom . import checker\n",
             "lsp/server.py": "from ..rules import base\nfrom . import convert\n"}
    for module, text in files.items():
        (package / module).parent.mkdir(parents=True, exist_ok=True)
        (package / module).write_text(text)
    assert forbidden_edges(package) == []
