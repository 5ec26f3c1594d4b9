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
from .evaluate import CallVal, Evaluator, Order, TupleVal
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
    v = ev.value(*opt)
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
               ast.Pow: lambda a, b: a ** b if abs(b) <= 64 else None}


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


__all__ = ["TpuParamsArg", "number", "sequence_length", "tpu_params_arg"]
