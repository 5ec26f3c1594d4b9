"""Every module of the package imports first, in a fresh interpreter, and in any order; and no
module of the analysis core dodges a circle with an import inside a function (issue 39: the
lazy circles launches<->transforms and classes<->evaluate are gone, and stay gone)."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "server" / "pallas_lsp"
ANALYSIS = PACKAGE / "analysis"


def dotted(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_modules() -> list[str]:
    """Every module, the rule and kind examples (programs analysed, never imported) and ``__main__``
    (importing it runs the command line) aside."""
    return sorted(dotted(p) for p in PACKAGE.rglob("*.py")
                  if "examples" not in p.relative_to(PACKAGE).parts[:-1] and "__pycache__" not in p.parts
                  and p.name != "__main__.py")


def run_imports(names: list[str]) -> subprocess.CompletedProcess:
    """Import ``names`` in that order in a fresh interpreter (nothing of the package loaded)."""
    program = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\n"
    return subprocess.run([sys.executable, "-c", program, *names], capture_output=True, text=True, timeout=120)


def analysis_graph() -> tuple[dict[str, set[str]], list[tuple[str, int, str]]]:
    """The analysis modules' module-level imports of each other (what runs when a module is
    imported; ``if TYPE_CHECKING:`` blocks never run), and each import made inside a function."""
    top: dict[str, set[str]] = {}
    inner: list[tuple[str, int, str]] = []
    for path in sorted(ANALYSIS.glob("*.py")):
        name = path.stem
        tree = ast.parse(path.read_text())
        top[name] = set()

        def targets(node: ast.ImportFrom) -> set[str]:
            if node.level != 1:
                return set()
            if node.module:
                return {node.module.split(".")[0]}
            return {a.name for a in node.names}

        for node in tree.body:
            if isinstance(node, ast.ImportFrom):
                top[name] |= targets(node)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for sub in ast.walk(node):
                    if isinstance(sub, ast.ImportFrom):
                        inner += [(name, sub.lineno, t) for t in targets(sub)]
    return top, inner


def reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            todo += graph.get(node, ())
    return False


def test_no_analysis_module_imports_inside_a_function_what_imports_it_back():
    top, inner = analysis_graph()
    circles = [f"analysis/{m}.py:{line} imports .{t} in a function, and .{t} imports {m} back"
               for m, line, t in inner if t in top and reaches(top, t, m)]
    assert circles == []


def test_the_circle_check_sees_a_lazy_circle():
    """(The check above can fail: a function-level import of a module that imports the importer.)"""
    graph = {"launches": {"transforms"}, "transforms": {"evaluate"}, "evaluate": set()}
    assert reaches(graph, "launches", "transforms") and not reaches(graph, "transforms", "launches")


@pytest.mark.slow
@pytest.mark.parametrize("first", package_modules())
def test_each_module_imports_first(first):
    got = run_imports([first])
    assert got.returncode == 0, got.stderr[-2000:]


@pytest.mark.parametrize("order", ["sorted", "reversed", "analysis-last"])
def test_every_module_imports_in_any_order(order):
    names = package_modules()
    if order == "reversed":
        names = names[::-1]
    elif order == "analysis-last":  # (the adapters and rules first, the core they build on after)
        names = sorted(names, key=lambda n: (".analysis" in n, n))
    got = run_imports(names)
    assert got.returncode == 0, got.stderr[-2000:]


def test_each_analysis_module_imports_first():
    """The analysis core's modules, each the first thing imported (one interpreter apiece)."""
    failures = []
    for name in sorted(dotted(p) for p in ANALYSIS.glob("*.py")):
        got = run_imports([name])
        if got.returncode != 0:
            failures.append(f"{name}: {got.stderr.strip().splitlines()[-1]}")
    assert failures == []
