"""The shipped lowering tables under real JAX: regenerating them in the oracle environment gives
the same bytes, and they agree with every label of ../shared/corpus-prims: a case with a feature
calls an operation that surely emits a primitive its backend does not lower (the one its error
names), a clean case's operation emits only primitives its backend lowers. Neutral cases (a rule
exists but rejects parameters, shapes, dtypes or layouts) are skipped.

Run as a script it prints, per backend, how many cases the tables alone predict right.

The `# OP` line is read with a small resolver written for these one-line cases (calls through the
module aliases jnp/lax/jax.nn/jax.scipy.special, methods, operators, indexing, .at[] updates);
it stands in for the analyser's own resolution of calls and facts.
"""
from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "server"))

from pallas_lsp.lowering import UNKNOWN, LoweringTables  # noqa: E402

TABLES_DIR = ROOT / "server" / "pallas_lsp" / "records" / "releases" / "jax-0.12.0.1"
GENERATOR = ROOT / "scripts" / "gen_lowering_tables.py"
CORPUS = Path(os.environ.get("PALLAS_CORPUS_PRIMS", ROOT.parent / "shared" / "corpus-prims"))
ENV_PYTHON = ROOT / ".oracle-env" / "bin" / "python"

BACKEND_OF_LABEL = {"tpu": "tpu", "triton": "triton", "mgpu_wg": "mosaic_gpu_warpgroup",
                    "mgpu_lane": "mosaic_gpu_lane"}
MODULE_ALIASES = {"jnp": "jax.numpy", "lax": "jax.lax", "jax": "jax", "np": "numpy",
                  "pl": "jax.experimental.pallas", "plgpu": "jax.experimental.pallas.mosaic_gpu",
                  "pltpu": "jax.experimental.pallas.tpu"}
# Pallas APIs lower by construction on their own backend; they are not in the tables.
PALLAS_PREFIX = "jax.experimental.pallas"
OPERATORS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
             ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul",
             ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor", ast.LShift: "lshift",
             ast.RShift: "rshift"}
COMPARISONS = {ast.Gt: "gt", ast.GtE: "ge", ast.Lt: "lt", ast.LtE: "le", ast.Eq: "eq",
               ast.NotEq: "ne"}
UNARY = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert"}

pytestmark = pytest.mark.oracle


# --------------------------------------------------------------------------------------------
# Reading an `# OP` line
# --------------------------------------------------------------------------------------------

def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in MODULE_ALIASES:
        return ".".join([MODULE_ALIASES[node.id], *reversed(parts)])
    return None


def _value(node: ast.AST):
    """A literal's value, a dtype attribute's name (jnp.int32 -> "int32"), or UNKNOWN."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        pass
    dotted = _dotted(node)
    if dotted and dotted.startswith(("jax.numpy.", "numpy.")):
        return dotted.rsplit(".", 1)[1]
    return UNKNOWN


def _literal_kind(node: ast.AST) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return "array"
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return "int"
    if isinstance(node, ast.Constant) and isinstance(node.value, float):
        return "float"
    return "array"


def _index_kind(index: ast.AST) -> str:
    items = index.elts if isinstance(index, ast.Tuple) else [index]
    if all(isinstance(i, ast.Constant) and i.value is Ellipsis for i in items):
        return "ellipsis"
    if any(isinstance(i, ast.Slice) and isinstance(i.step, ast.UnaryOp) for i in items):
        return "reverse_slice"
    if any(isinstance(i, ast.Slice) and i.step is not None for i in items):
        return "strided_slice"
    if any(isinstance(i, ast.Slice) for i in items):
        return "static_slice"
    if all(isinstance(i, ast.Constant) and isinstance(i.value, int) for i in items):
        return "static_int" if len(items) == 1 else "static_ints"
    return "traced_int"


def op_calls(source_line: str, dtypes: dict[str, str] | None = None) -> list[tuple[str, dict, list]]:
    """(table name, facts, positional values) for every call, operator, index and attribute
    the line evaluates (lambda bodies included). dtypes: variable -> dtype name, giving the
    arg_dtype fact of the first array argument (of the owner, for methods and operators)."""
    tree = ast.parse(source_line.strip())
    calls: list[tuple[str, dict, list]] = []
    dtypes = dtypes or {}

    def with_dtype(facts: dict, *operands: ast.AST) -> dict:
        for operand in operands:
            if isinstance(operand, ast.Name) and operand.id in dtypes:
                return dict(facts, arg_dtype=dtypes[operand.id])
        return facts

    class Visitor(ast.NodeVisitor):
        def visit_Call(self, node: ast.Call) -> None:
            func = node.func
            positional = [_value(a) for a in node.args]
            facts = {k.arg: _value(k.value) for k in node.keywords if k.arg}
            dotted = _dotted(func)
            if dotted:
                if dotted == "jax.lax.fori_loop":
                    static = all(isinstance(a, ast.Constant) for a in node.args[:2])
                    facts["bounds"] = "static" if static else "traced"
                    positional = []
                if dotted == "jax.lax.scan" and len(node.args) > 2:
                    facts["xs"] = _value(node.args[2])
                    positional = []
                calls.append((dotted, with_dtype(facts, *node.args), positional))
            elif isinstance(func, ast.Attribute):
                owner = func.value
                if isinstance(owner, ast.Subscript) and isinstance(owner.value, ast.Attribute) \
                        and owner.value.attr == "at":
                    calls.append((f"jax.Array.at[].{func.attr}",
                                  with_dtype({"index": _index_kind(owner.slice)}, owner.value.value), []))
                    for arg in node.args:
                        self.visit(arg)
                    self.visit(owner.value.value)
                    return
                calls.append((f"jax.Array.{func.attr}", with_dtype(facts, owner), positional))
            self.generic_visit(node)

        def visit_BinOp(self, node: ast.BinOp) -> None:
            op = OPERATORS[type(node.op)]
            if _literal_kind(node.left) != "array" and _literal_kind(node.right) == "array":
                calls.append((f"jax.Array.__r{op}__",
                              with_dtype({"other": _literal_kind(node.left)}, node.right), []))
            elif _literal_kind(node.left) == "array" or _literal_kind(node.right) == "array":
                calls.append((f"jax.Array.__{op}__",
                              with_dtype({"other": _literal_kind(node.right)}, node.left), []))
            self.generic_visit(node)

        def visit_Compare(self, node: ast.Compare) -> None:
            for op, right in zip(node.ops, node.comparators):
                calls.append((f"jax.Array.__{COMPARISONS[type(op)]}__",
                              with_dtype({"other": _literal_kind(right)}, node.left), []))
            self.generic_visit(node)

        def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
            if type(node.op) in UNARY and _literal_kind(node.operand) == "array":
                calls.append((f"jax.Array.__{UNARY[type(node.op)]}__", {}, []))
            self.generic_visit(node)

        def visit_Subscript(self, node: ast.Subscript) -> None:
            # result[0] of a call returning a tuple (top_k, scan) is not an array index.
            if not isinstance(node.value, ast.Call):
                calls.append(("jax.Array.__getitem__",
                              with_dtype({"index": _index_kind(node.slice)}, node.value), []))
            self.generic_visit(node)

        def visit_Attribute(self, node: ast.Attribute) -> None:
            if node.attr in ("T", "mT", "real", "imag") and _dotted(node) is None:
                calls.append((f"jax.Array.{node.attr}", {}, []))
            self.generic_visit(node)

    Visitor().visit(tree)
    return calls


def _op_line(case: Path) -> tuple[str, dict[str, str]]:
    """The `# OP` expression and the dtypes of the kernel's variables: `v = v_ref[...]` has the
    dtype of v_ref's entry in IN; `w = f(v, ...)` before the OP line inherits v's."""
    source = case.read_text()
    tree = ast.parse(source)
    in_dtypes: list[str] = []
    dtypes: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "IN" for t in node.targets):
            for item in node.value.elts:
                dtype = item.args[1] if isinstance(item, ast.Call) and len(item.args) > 1 else None
                in_dtypes.append(dtype.attr if isinstance(dtype, ast.Attribute) else "")
        if isinstance(node, ast.FunctionDef) and node.name == "kernel":
            refs = [a.arg for a in node.args.args]
            for stmt in node.body:
                if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)):
                    continue
                target, value = stmt.targets[0].id, stmt.value
                if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) \
                        and value.value.id in refs and refs.index(value.value.id) < len(in_dtypes):
                    dtypes[target] = in_dtypes[refs.index(value.value.id)]
                elif isinstance(value, ast.Call):
                    for arg in value.args:
                        if isinstance(arg, ast.Name) and arg.id in dtypes:
                            dtypes.setdefault(target, dtypes[arg.id])
                            break
    for line in source.splitlines():
        if line.rstrip().endswith("# OP"):
            expr = line.split("#", 1)[0].strip()
            return (expr.split("=", 1)[1] if expr.startswith("r =") else expr), dtypes
    raise AssertionError(f"{case.name}: no # OP line")


def prediction(tables: LoweringTables, case: Path, backend: str) -> tuple[frozenset, frozenset, list]:
    """(primitives the operation surely emits, those the backend does not lower, names the
    tables do not know)."""
    emitted: set[str] = set()
    unknown = []
    for name, facts, positional in op_calls(*_op_line(case)):
        if name.startswith(PALLAS_PREFIX):
            continue
        answer = tables.emitted(name, facts, positional)
        if answer is None:
            unknown.append(name)
            continue
        emitted |= answer.always
    unlowered = frozenset(p for p in emitted if not tables.lowers(backend, p))
    return frozenset(emitted), unlowered, unknown


def _labels() -> dict:
    path = CORPUS / "labels.json"
    if not path.exists():
        pytest.skip(f"no corpus at {CORPUS}")
    return json.loads(path.read_text())


def _named_primitive(message: str) -> str:
    # "...lowering for tc: X. Please", "...Triton lowering: X. Please", "...GPU lowering: X for"
    tail = message.split("lowering", 1)[1].split(":", 1)[1].strip()
    return tail.split(" ")[0].rstrip(".")


def _load_tables(folder: Path) -> LoweringTables:
    read = lambda n: json.loads((folder / n).read_text())  # noqa: E731
    return LoweringTables(read("backends.json"), read("functions.json"), read("metadata.json"))


def score(tables: LoweringTables, labels: dict) -> tuple[dict, list[str], list[str]]:
    """Per label backend: [right, wrong, neutral]; each disagreement, explained; and the
    neutral cases where the tables also see an unlowered primitive (the run raised earlier,
    in a rule that rejected a layout or parameter: not counted)."""
    counts: dict[str, list[int]] = {}
    disagreements = []
    neutral_notes = []
    for case_name, label in sorted(labels.items()):
        tally = counts.setdefault(label["backend"], [0, 0, 0])
        backend = BACKEND_OF_LABEL[label["backend"]]
        emitted, unlowered, unknown = prediction(tables, CORPUS / case_name, backend)
        predicted_feature = bool(unlowered)
        if label["neutral"]:
            tally[2] += 1
            if predicted_feature:
                neutral_notes.append(f"{case_name} (neutral): the tables say {sorted(unlowered)} "
                                     f"unlowered on {backend}; the run raised: {label['message']}")
            continue
        if unknown:
            disagreements.append(f"{case_name}: the tables do not know {unknown}")
        if label["feature"]:
            named = _named_primitive(label["message"])
            right = named in unlowered
            why = f"the error names {named!r}; the tables say unlowered {sorted(unlowered)}"
        else:
            right = not predicted_feature
            why = f"clean, but the tables say unlowered {sorted(unlowered)} of {sorted(emitted)}"
        tally[0 if right else 1] += 1
        if not right:
            disagreements.append(f"{case_name}: {why}")
    return counts, disagreements, neutral_notes


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------

def test_regenerating_gives_the_shipped_tables(tmp_path):
    python = os.environ.get("PALLAS_ORACLE_PY") or str(ENV_PYTHON)
    if not os.access(python, os.X_OK):
        pytest.skip("no oracle environment (scripts/oracle-env)")
    out = tmp_path / "lowering"
    shutil.copytree(TABLES_DIR, out)  # the date is kept when nothing else changed
    proc = subprocess.run([python, str(GENERATOR), "--out", str(out)], capture_output=True,
                          text=True, timeout=600, env=dict(os.environ, JAX_PLATFORMS="cpu"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name in ("backends.json", "functions.json", "metadata.json", "release.json"):
        assert (out / name).read_bytes() == (TABLES_DIR / name).read_bytes(), name


def test_tables_agree_with_every_corpus_label():
    tables = _load_tables(TABLES_DIR)
    counts, disagreements, _ = score(tables, _labels())
    assert not disagreements, "\n".join(disagreements)
    assert sum(c[0] for c in counts.values()) > 0


def test_resolver_reads_the_line_shapes_of_the_corpus():
    calls = op_calls("x.at[0, 0].set(1.0)")
    assert calls[0] == ("jax.Array.at[].set", {"index": "static_ints"}, [])
    assert op_calls("jnp.flip(x, axis=1)") == [("jax.numpy.flip", {"axis": 1}, [UNKNOWN])]
    assert ("jax.Array.__getitem__", {"index": "reverse_slice"}, []) in op_calls("x[::-1]")
    assert op_calls("lax.fori_loop(0, i + 4, f, x)")[0][1] == {"bounds": "traced"}
    assert op_calls("x ** 3") == [("jax.Array.__pow__", {"other": "int"}, [])]


if __name__ == "__main__":
    tables = _load_tables(TABLES_DIR)
    counts, disagreements, neutral_notes = score(tables, json.loads((CORPUS / "labels.json").read_text()))
    for backend, (right, wrong, neutral) in sorted(counts.items()):
        print(f"{backend:10} right {right:3}  wrong {wrong:3}  neutral {neutral:3}")
    for line in disagreements:
        print(" - disagreement:", line)
    for line in neutral_notes:
        print(" - note:", line)
