"""What a ``pl.pallas_call``'s ``pltpu.CompilerParams`` say, as far as the code spells it.

The Mosaic TPU lowering reads ``dimension_semantics`` (one entry per grid axis, checked in
``MosaicGridMapping.__init__``, ``jax/_src/pallas/mosaic/lowering.py``) and
``vmem_limit_bytes`` from the launch's ``compiler_params=``. This module finds that call and
reads its arguments; a fact the code does not say is None, and a rule built on it stays quiet.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from . import api
from .evaluate import CallVal, Const, Evaluator, Ext, Order, TupleVal
from .scopes import Scope
from .shapes import dimension

Where = tuple[ast.AST, Scope, Order]


@dataclass
class TpuParamsArg:
    """One keyword of a ``pltpu.CompilerParams(...)`` call: where it is written, and the
    call (to underline the ``compiler_params=`` where the keyword sits elsewhere)."""

    where: Where
    params: CallVal


def tpu_params_arg(ev: Evaluator, launch, keyword: str) -> TpuParamsArg | None:
    """The ``keyword=`` argument of the launch's ``pltpu.CompilerParams`` (None when the launch
    has none, the call is not known, or the keyword is not given)."""
    opt = launch.options.get("compiler_params")
    if opt is None:
        return None
    v = ev.returned(ev.value(*opt))  # (through a small helper that builds them)
    if not isinstance(v, CallVal) or ev.called_api(v) not in api.TPU_COMPILER_PARAMS:
        return None
    node = ev.kwarg(v.site, keyword)
    if node is None:
        return None
    return TpuParamsArg((node, v.site.scope, v.order), v)


def sequence_length(ev: Evaluator, where: Where, depth: int = 0) -> int | None:
    """How many entries a tuple or list has where the code spells them all (a literal, a
    name bound to one, a folded constant, ``("parallel",) * 2``, ``a + b``); None otherwise
    (a starred item, a call...)."""
    node, scope, order = where
    if isinstance(node, ast.BinOp) and depth < 8:
        if isinstance(node.op, ast.Add):
            a = sequence_length(ev, (node.left, scope, order), depth + 1)
            b = sequence_length(ev, (node.right, scope, order), depth + 1)
            return a + b if a is not None and b is not None else None
        if isinstance(node.op, ast.Mult):
            for seq, times in ((node.left, node.right), (node.right, node.left)):
                n = dimension(ev, times, scope, order)
                if n is not None:
                    length = sequence_length(ev, (seq, scope, order), depth + 1)
                    return length * max(n, 0) if length is not None else None
            return None
    v = ev.value(*where)
    if isinstance(v, TupleVal):
        if any(isinstance(node, ast.Starred) for node, _, _ in v.items):
            return None
        return len(v.items)
    c = ev.const(*where)
    if isinstance(c, (tuple, list)):
        return len(c)
    return None


_ARITHMETIC = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
               ast.Div: lambda a, b: a / b if b else None, ast.FloorDiv: lambda a, b: a // b if b else None,
               ast.Pow: lambda a, b: a ** b if abs(b) <= 64 else None,
               ast.LShift: lambda a, b: a << b if isinstance(a, int) and isinstance(b, int) and 0 <= b <= 62 else None}


def number(ev: Evaluator, where: Where, depth: int = 0) -> int | float | None:
    """The int or float an expression is where the code spells it: a literal, a name bound
    once by assignment, arithmetic on those (``0.75 * CAPACITY``, ``64 * 2**20``); Python's own
    types, so ``/`` gives a float as it does at run time."""
    node, scope, order = where
    if depth > 8:
        return None
    c = ev.const(node, scope, order)
    if isinstance(c, (int, float)) and not isinstance(c, bool):
        return c
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        a = number(ev, (node.left, scope, order), depth + 1)
        b = number(ev, (node.right, scope, order), depth + 1)
        return _ARITHMETIC[type(node.op)](a, b) if a is not None and b is not None else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        a = number(ev, (node.operand, scope, order), depth + 1)
        return -a if a is not None else None
    if isinstance(node, ast.Name):
        bound = ev.lookup(node.id, scope, order)
        if bound is not None and bound.kind == "assign" and bound.node is not None and bound.scope is not None:
            return number(ev, (bound.node, bound.scope, ev.order_of(bound)), depth + 1)
    return None


def sequence_items(ev: Evaluator, where: Where, depth: int = 0) -> list[Where] | None:
    """The entries of a tuple or list where the code spells them all (a literal, a name bound to
    one, ``(a,) * 2``, ``a + b``), each where it is written; None otherwise."""
    node, scope, order = where
    if depth > 8:
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a = sequence_items(ev, (node.left, scope, order), depth + 1)
        b = sequence_items(ev, (node.right, scope, order), depth + 1)
        return a + b if a is not None and b is not None else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        for seq, times in ((node.left, node.right), (node.right, node.left)):
            n = dimension(ev, times, scope, order)
            if n is not None:
                items = sequence_items(ev, (seq, scope, order), depth + 1)
                return items * max(n, 0) if items is not None else None
        return None
    if isinstance(node, (ast.Tuple, ast.List)):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            return None
        return [(e, scope, order) for e in node.elts]
    v = ev.value(*where)
    if isinstance(v, TupleVal):
        if any(isinstance(n, ast.Starred) for n, _, _ in v.items):
            return None
        return list(v.items)
    if isinstance(node, ast.Name):
        b = ev.lookup(node.id, scope, order)
        if b is not None and b.kind == "assign" and b.node is not None and b.scope is not None:
            return sequence_items(ev, (b.node, b.scope, ev.order_of(b)), depth + 1)
    return None


# The dimension semantics Mosaic's attribute parser accepts (``#tpu.dimension_semantics<...>``),
# and the pltpu names that stand for them (``GridDimensionSemantics`` members, canonicalised to
# their value before the parse).
DIMENSION_SEMANTICS = ("parallel", "arbitrary", "core_parallel", "subcore_parallel")
_SEMANTIC_NAMES = {f"{api.PLTPU}.{n}" for n in ("PARALLEL", "ARBITRARY", "CORE_PARALLEL", "SUBCORE_PARALLEL")} | {
    f"{api.PLTPU}.GridDimensionSemantics.{n}" for n in ("PARALLEL", "ARBITRARY", "CORE_PARALLEL", "SUBCORE_PARALLEL")}


@dataclass
class BadSemantic:
    """A dimension semantic the TPU lowering cannot parse: the string, and where it is written."""

    text: str
    where: Where
    position: int


def invalid_semantic(ev: Evaluator, arg: TpuParamsArg) -> tuple[BadSemantic | None, int | None]:
    """The first entry of ``dimension_semantics`` that is surely not one of Mosaic's four (a
    string spelled otherwise: 'Parallel', 'sequential'), and how many entries there are; an
    entry the code does not spell (a call, a parameter) is taken to be valid."""
    with ev.within(arg.params.frames):
        items = sequence_items(ev, arg.where)
        if items is None:
            return None, None
        for position, item in enumerate(items):
            c = ev.const(*item)
            if isinstance(c, str) and c not in DIMENSION_SEMANTICS:
                return BadSemantic(c, item, position), len(items)
            if c is None and not isinstance(item[0], ast.Constant):
                v = ev.value(*item)
                if isinstance(v, Const) and isinstance(v.value, str) and v.value not in DIMENSION_SEMANTICS:
                    return BadSemantic(v.value, item, position), len(items)
                if isinstance(v, Ext) and v.name not in _SEMANTIC_NAMES:
                    continue  # (another name: not known)
    return None, len(items)


# The backend each compiler-params class belongs to (the platform its lowering rule is registered
# for, ``pallas_core.register_lowering_rule``).
PARAMS_BACKENDS = {**{n: "tpu" for n in api.TPU_COMPILER_PARAMS}, **{n: "triton" for n in api.TRITON_COMPILER_PARAMS},
                   **{n: "mosaic_gpu" for n in api.GPU_COMPILER_PARAMS}}


def params_call(ev: Evaluator, launch) -> tuple[CallVal, str] | None:
    """The launch's ``compiler_params=`` call and the backend its class belongs to ("tpu",
    "triton", "mosaic_gpu"); None without one or where the value is not a known params call."""
    opt = launch.options.get("compiler_params")
    if opt is None:
        return None
    v = ev.returned(ev.value(*opt))
    if not isinstance(v, CallVal):
        return None
    backend = PARAMS_BACKENDS.get(ev.called_api(v) or "")
    return (v, backend) if backend is not None else None


__all__ = ["BadSemantic", "DIMENSION_SEMANTICS", "PARAMS_BACKENDS", "TpuParamsArg", "invalid_semantic", "number",
           "params_call", "sequence_items", "sequence_length", "tpu_params_arg"]
