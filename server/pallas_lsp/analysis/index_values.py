"""What a BlockSpec index map returns, index by index: an integer or a float scalar, and the
arrays from outside the map it reads.

``BlockSpec.to_block_mapping`` traces the index map with one int32 per grid axis (then the
scalar-prefetch refs) and, after the count of indices, requires every index to be an int32 /
int64 scalar, then the traced map to capture no constants. A float index (true division
``i / 2``, a Python float in the arithmetic, ``jnp.floor`` of a float) fails the first check;
an index read from a ``jnp`` array bound outside the map (``TABLE[i]``) or a 0-d ``jnp`` scalar
from outside passes it and fails the second. Only what the expression surely is gets an
answer: an operand the analysis cannot type makes the whole index unknown.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .evaluate import CallVal, Evaluator, FuncVal
from .launch_signature import array_dtype
from .scopes import Scope
from .shapes import array_shape

_NP = "jax.numpy."
_INT_DTYPES = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}
_ARRAY_FROM_DATA = {f"{_NP}array", f"{_NP}asarray"}
_FILLED = {f"{_NP}{n}" for n in ("zeros", "ones", "full", "empty")}
# ``jnp.floor`` / ``jnp.ceil`` keep the kind of their argument (an int stays an int).
_KEEPS_KIND = {f"{_NP}{n}" for n in ("floor", "ceil", "abs", "negative")}
_MAX_DEPTH = 8


@dataclass(frozen=True)
class IndexValue:
    """One index an index map returns: ``kind`` is "int" or "float"; ``captured`` the reads of
    ``jnp`` arrays bound outside the map (each a node and the array's name)."""

    kind: str
    captured: tuple[tuple[ast.AST, str], ...] = ()
    int_division: bool = False  # a float made by true division of two integers (``i / 2``)


@dataclass(frozen=True)
class _Table:
    """A ``jnp`` array bound outside the index map: its rank and whether it holds integers."""

    rank: int
    integer: bool


def returned_indices(ev: Evaluator, fn: FuncVal,
                     grid_params: int | None) -> list[tuple[ast.AST, IndexValue | None]] | None:
    """The indices an index map returns (each node with what it surely is), where it has one
    ``return`` (or is a lambda) whose value is written as a tuple or a single index. The first
    ``grid_params`` positional parameters are the grid indices (all of them when None)."""
    scope = fn.scope
    node = scope.node
    returned = [node.body] if isinstance(node, ast.Lambda) else list(scope.returns)
    if len(returned) != 1 or returned[0] is None:
        return None
    positional = [p[0] for p in scope.params if p[2] in ("posonly", "normal")]
    ints = set(positional if grid_params is None else positional[:grid_params])
    body = returned[0]
    elements = body.elts if isinstance(body, (ast.Tuple, ast.List)) else [body]
    if any(isinstance(e, ast.Starred) for e in elements):
        return None
    return [(e, _index(ev, e, scope, ints, 0)) for e in elements]


def _index(ev: Evaluator, node: ast.AST, scope: Scope, ints: set[str], depth: int) -> IndexValue | None:
    if depth > _MAX_DEPTH:
        return None
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            return None
        if isinstance(node.value, int):
            return IndexValue("int")
        return IndexValue("float") if isinstance(node.value, float) else None
    if isinstance(node, ast.Name):
        return _name_index(ev, node, scope, ints, depth)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _index(ev, node.operand, scope, ints, depth + 1)
    if isinstance(node, ast.BinOp):
        return _binop_index(ev, node, scope, ints, depth)
    if isinstance(node, ast.Subscript):
        return _table_read(ev, node, scope, ints, depth)
    if isinstance(node, ast.Call):
        return _call_index(ev, node, scope, ints, depth)
    return None


def _binop_index(ev: Evaluator, node: ast.BinOp, scope: Scope, ints: set[str], depth: int) -> IndexValue | None:
    left = _index(ev, node.left, scope, ints, depth + 1)
    right = _index(ev, node.right, scope, ints, depth + 1)
    if left is None or right is None:
        return None
    captured = left.captured + right.captured
    either_float = "float" in (left.kind, right.kind)
    if isinstance(node.op, ast.Div):
        # (true division of integers is a float)
        return IndexValue("float", captured, not either_float)
    if isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)):
        return IndexValue("float" if either_float else "int", captured)
    if isinstance(node.op, (ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)) and not either_float:
        return IndexValue("int", captured)
    return None  # (``**`` and the rest: not followed)


def _name_index(ev: Evaluator, node: ast.Name, scope: Scope, ints: set[str], depth: int) -> IndexValue | None:
    b = ev.lookup(node.id, scope)
    if b is None or b.scope is None:
        return None
    if b.scope is scope:
        if b.kind == "param":
            return IndexValue("int") if node.id in ints else None
        if b.kind == "assign" and b.node is not None:  # (a local of a def'd map)
            return _index(ev, b.node, scope, ints, depth + 1)
        return None
    value = ev.const(node, scope)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return IndexValue("int")
    if isinstance(value, float):
        return IndexValue("float")
    table = _outside_table(ev, node, scope)
    if table is not None and table.rank == 0:  # (a 0-d jnp scalar from outside is a constant too)
        return IndexValue("int" if table.integer else "float", ((node, node.id),))
    return None


def _table_read(ev: Evaluator, node: ast.Subscript, scope: Scope, ints: set[str], depth: int) -> IndexValue | None:
    """``TABLE[i]`` of a ``jnp`` array bound outside the map, indexed by one scalar per dim."""
    if not isinstance(node.value, ast.Name):
        return None
    table = _outside_table(ev, node.value, scope)
    if table is None:
        return None
    indices = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if len(indices) != table.rank:
        return None
    facts = [_index(ev, i, scope, ints, depth + 1) for i in indices]
    if any(f is None or f.kind != "int" for f in facts):
        return None
    captured = tuple(c for f in facts for c in f.captured)  # type: ignore[union-attr]
    return IndexValue("int" if table.integer else "float", ((node, node.value.id),) + captured)


def _call_index(ev: Evaluator, node: ast.Call, scope: Scope, ints: set[str], depth: int) -> IndexValue | None:
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "astype" and len(node.args) == 1 and not node.keywords:
        inner = _index(ev, func.value, scope, ints, depth + 1)
        dtype = _dtype_name(ev, node.args[0], scope)
        if inner is None or dtype is None:
            return None
        return IndexValue("int" if dtype in _INT_DTYPES else "float", inner.captured)
    if len(node.args) != 1 or node.keywords:
        return None
    v = ev.value(node, scope)
    name = ev.called_api(v) if isinstance(v, CallVal) else None
    if name is None:
        return None
    inner = _index(ev, node.args[0], scope, ints, depth + 1)
    if inner is None:
        return None
    if name in _KEEPS_KIND:
        return inner
    if name.startswith(_NP) and name[len(_NP):] in _INT_DTYPES:  # (``jnp.int32(i / 2)``)
        return IndexValue("int", inner.captured)
    return None


def _dtype_name(ev: Evaluator, node: ast.expr, scope: Scope) -> str | None:
    value = ev.value(node, scope)
    name = ev.ext_name(value)
    if name is not None and name.startswith(_NP):
        return name[len(_NP):]
    c = ev.const(node, scope)
    return c if isinstance(c, str) else None


def _outside_table(ev: Evaluator, name: ast.Name, scope: Scope) -> _Table | None:
    """The ``jnp`` array a name of the index map stands for, where it is bound once by
    assignment outside the map to a constructor whose rank and integer-ness the code says."""
    b = ev.lookup(name.id, scope)
    if b is None or b.scope is None or b.scope is scope or b.kind != "assign" or b.node is None:
        return None
    node, where, order = b.node, b.scope, ev.order_of(b)
    v = ev.value(node, where, order)
    if not isinstance(v, CallVal) or isinstance(v.func, FuncVal):
        return None
    called = ev.called_api(v)
    if called is None or not called.startswith(_NP):
        return None
    short = called[len(_NP):]
    if short in _INT_DTYPES and len(v.site.node.args) == 1:  # (``jnp.int32(3)``: a 0-d array)
        return _Table(0, True)
    if short == "float32" and len(v.site.node.args) == 1:
        return _Table(0, False)
    dtype = array_dtype(ev, node, where, order)  # type: ignore[arg-type]
    if called in _ARRAY_FROM_DATA and v.site.node.args:
        rank, integer = _literal_rank(ev, v.site.node.args[0], where)
        if rank is None:
            return None
        if dtype is not None:
            integer = dtype in _INT_DTYPES
        return _Table(rank, integer) if integer is not None else None
    if called == f"{_NP}arange" and dtype is None:
        if all(isinstance(ev.const(a, where, order), int) for a in v.site.node.args) and not v.site.node.keywords:
            return _Table(1, True)
        return None
    if called in _FILLED and dtype is not None:
        shape = array_shape(ev, node, where, order)
        return _Table(len(shape), dtype in _INT_DTYPES) if shape is not None else None
    return None


def _literal_rank(ev: Evaluator, node: ast.AST, scope: Scope) -> tuple[int | None, bool | None]:
    """The nesting depth of a list / tuple literal of numbers, and whether they are all ints."""
    if isinstance(node, (ast.List, ast.Tuple)):
        if not node.elts:
            return None, None
        inner = [_literal_rank(ev, e, scope) for e in node.elts]
        ranks = {r for r, _ in inner}
        if len(ranks) != 1 or None in ranks:
            return None, None
        kinds = {i for _, i in inner}
        return ranks.pop() + 1, (None if None in kinds else all(kinds))  # type: ignore[operator]
    c = ev.const(node, scope)
    if isinstance(c, bool) or not isinstance(c, (int, float)):
        return None, None
    return 0, isinstance(c, int)


__all__ = ["IndexValue", "returned_indices"]
