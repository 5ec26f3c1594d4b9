"""Array shapes the code spells out: ``jnp.ones((8, 128))``, ``jax.ShapeDtypeStruct(x.shape, ...)``,
a parameter every caller passes such an array, and the operands a launch is applied to.

Some errors depend on whether a BlockSpec covers its whole array (the GPU interpreter asserts
``has_trivial_window`` for every block before anything else). That needs the array's shape,
which only the code around the launch says. Every answer is a shape that is surely so, or
None: a shape the analysis cannot tell never counts.
"""
from __future__ import annotations

import ast

from .evaluate import CallVal, Const, Evaluator, FuncVal, Order, TupleVal, Value
from .scopes import CallSite, Scope

Shape = tuple[int, ...]

_MAX_DEPTH = 8
_NP = "jax.numpy."
_FILLED = {f"{_NP}{n}" for n in ("zeros", "ones", "empty", "full")} | {f"numpy.{n}" for n in ("zeros", "ones", "empty", "full")}
_LIKE = {f"{_NP}{n}" for n in ("zeros_like", "ones_like", "empty_like", "full_like", "asarray", "array")}
_RANDOM = {f"jax.random.{n}" for n in ("normal", "uniform", "bernoulli", "randint", "truncated_normal")}
_STRUCT = {"jax.ShapeDtypeStruct"}
_KEEPS_SHAPE = {"astype", "copy", "block_until_ready"}  # array methods that keep the shape
_SQUEEZED = {"jax.experimental.pallas.Squeezed", "jax.experimental.pallas.squeezed"}


_FOLD = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
         ast.FloorDiv: lambda a, b: a // b if b else None, ast.Mod: lambda a, b: a % b if b else None}


def dimension(ev: Evaluator, node: ast.AST, scope: Scope, order: Order = None, depth: int = 0) -> int | None:
    """An int the code spells out: a literal or constant, or integer arithmetic on them (``R // 2``)."""
    c = ev.const(node, scope, order)
    if isinstance(c, int) and not isinstance(c, bool):
        return c
    if isinstance(node, ast.BinOp) and type(node.op) in _FOLD and depth < _MAX_DEPTH:
        a = dimension(ev, node.left, scope, order, depth + 1)
        b = dimension(ev, node.right, scope, order, depth + 1)
        return _FOLD[type(node.op)](a, b) if a is not None and b is not None else None
    return None


def shape_literal(ev: Evaluator, node: ast.AST | None, scope: Scope, order: Order = None, depth: int = 0) -> Shape | None:
    """A shape written as a value: ``(8, 128)``, ``8``, ``(R // 2, C)``, ``x.shape`` of an array
    whose shape is known."""
    if node is None:
        return None
    c = ev.const(node, scope, order)
    if isinstance(c, (tuple, list)) and all(isinstance(d, int) and not isinstance(d, bool) for d in c):
        return tuple(c)
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return array_shape(ev, node.value, scope, order, depth + 1)
    if isinstance(node, (ast.Tuple, ast.List)):
        dims = [dimension(ev, e, scope, order) for e in node.elts]
        return None if any(d is None for d in dims) else tuple(dims)  # type: ignore[arg-type]
    d = dimension(ev, node, scope, order)
    return (d,) if d is not None else None


def array_shape(ev: Evaluator, node: ast.AST | None, scope: Scope, order: Order = None, depth: int = 0) -> Shape | None:
    """The shape of the array (or ``jax.ShapeDtypeStruct``) ``node`` is, where the code says it."""
    if node is None or depth > _MAX_DEPTH:
        return None
    if isinstance(node, ast.Name):
        return _name_shape(ev, node.id, scope, order, depth)
    if isinstance(node, ast.BinOp):
        left = array_shape(ev, node.left, scope, order, depth + 1)
        right = array_shape(ev, node.right, scope, order, depth + 1)
        if left is not None and right is not None:
            return left if left == right else None  # (broadcasting is not followed)
        other = node.right if left is not None else node.left
        if isinstance(ev.const(other, scope, order), (int, float)):
            return left if left is not None else right  # (an array and a Python number)
        return None
    if isinstance(node, ast.UnaryOp):
        return array_shape(ev, node.operand, scope, order, depth + 1)
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in _KEEPS_SHAPE:
        return array_shape(ev, func.value, scope, order, depth + 1)
    if isinstance(func, ast.Attribute) and func.attr == "reshape" and node.args and not node.keywords:
        if len(node.args) == 1:
            return shape_literal(ev, node.args[0], scope, order, depth + 1)
        return shape_literal(ev, ast.Tuple(elts=list(node.args), ctx=ast.Load()), scope, order, depth + 1)
    v = ev.value(node, scope, order)
    if not isinstance(v, CallVal):
        return None
    name = ev.called_api(v)
    site = v.site
    if name in _FILLED or name in _STRUCT:
        return shape_literal(ev, _arg(ev, site, 0, "shape"), scope, order, depth + 1)
    if name in _RANDOM:
        return shape_literal(ev, _arg(ev, site, 1, "shape"), scope, order, depth + 1)
    if name == f"{_NP}arange" and len(node.args) == 1 and not node.keywords:
        return shape_literal(ev, node.args[0], scope, order, depth + 1)
    if name in _LIKE and node.args:
        return array_shape(ev, node.args[0], scope, order, depth + 1)
    return None


def _arg(ev: Evaluator, site: CallSite, position: int, keyword: str) -> ast.expr | None:
    node = ev.kwarg(site, keyword)
    return node if node is not None else (ev.posarg(site, position) if not site.has_star else None)


def _name_shape(ev: Evaluator, name: str, scope: Scope, order: Order, depth: int) -> Shape | None:
    b = ev.lookup(name, scope, order)
    if b is None or b.scope is None:
        return None
    if b.kind == "assign" and b.node is not None:
        return array_shape(ev, b.node, b.scope, ev.order_of(b), depth + 1)
    if b.kind == "param":
        return param_shape(ev, b.scope, name, depth + 1)
    return None


def param_shape(ev: Evaluator, fn: Scope, name: str, depth: int = 0) -> Shape | None:
    """The shape every call of ``fn`` passes for parameter ``name`` (None when a call passes
    something else, or when there is no call to tell)."""
    if depth > _MAX_DEPTH:
        return None
    shapes = set()
    for inv in ev.callers_of(fn):
        bound = ev.bind_param(inv, name)
        if bound is None or bound.node is None or bound.scope is None or bound.default:
            return None
        shape = array_shape(ev, bound.node, bound.scope, bound.order, depth + 1)
        if shape is None:
            return None
        shapes.add(shape)
    return shapes.pop() if len(shapes) == 1 else None


def operand_shapes(ev: Evaluator, applications: list[CallSite]) -> list[Shape | None] | None:
    """The shapes of the operands a launch is applied to, where every application agrees
    (None for an entry the code does not say; None for all when there is no application,
    a ``*args``, or applications that differ in number of operands)."""
    if not applications:
        return None
    out: list[Shape | None] | None = None
    for cs in applications:
        if cs.has_star or cs.node.keywords:
            return None
        order = ev.order_of(cs)
        shapes = [array_shape(ev, a, cs.scope, order) for a in cs.node.args]
        if out is None:
            out = shapes
        elif len(out) != len(shapes):
            return None
        else:
            out = [a if a == b else None for a, b in zip(out, shapes)]
    return out


def struct_shapes(ev: Evaluator, value: Value) -> list[Shape | None] | None:
    """The shapes of an ``out_shape=`` value: one ``jax.ShapeDtypeStruct`` (or array), or a
    literal tuple or list of them."""
    if isinstance(value, TupleVal):
        return [array_shape(ev, n, s, o) for n, s, o in value.items]
    if isinstance(value, CallVal):
        return [array_shape(ev, value.site.node, value.site.scope, value.order)]
    return None


def block_covers(ev: Evaluator, spec: Value, shape: Shape | None) -> bool | None:
    """Whether a BlockSpec has a trivial window on an array of ``shape`` (JAX's
    ``has_trivial_window``): its block is the whole array and its index map returns literal
    zeros. True or False where the code says so, None where it cannot be told. ``spec`` is
    the BlockSpec call (or None, the default, which is the whole array)."""
    if isinstance(spec, Const) and spec.value is None:
        return True
    if not isinstance(spec, CallVal) or ev.called_api(spec) != "jax.experimental.pallas.BlockSpec":
        return None
    site = spec.site
    block = _arg(ev, site, 0, "block_shape")
    index_map = _arg(ev, site, 1, "index_map")
    zeros = _returns_zeros(ev, ev.value(index_map, site.scope, spec.order)) if index_map is not None else True
    if zeros is False:
        return False
    if block is None or ev.const(block, site.scope, spec.order) is None:
        return zeros  # (no block shape: the whole array)
    dims = _block_dims(ev, block, site.scope, spec.order)
    if dims is None or shape is None:
        return None
    if dims != shape:
        return False
    return zeros


def _block_dims(ev: Evaluator, node: ast.expr, scope: Scope, order: Order) -> Shape | None:
    """A block shape, squeezed entries (``None``, ``pl.Squeezed()``) as 1."""
    if not isinstance(node, (ast.Tuple, ast.List)):
        return shape_literal(ev, node, scope, order)
    dims = []
    for e in node.elts:
        if ev.const(e, scope, order) is None:
            dims.append(1)
            continue
        d = dimension(ev, e, scope, order)
        if d is not None:
            dims.append(d)
            continue
        v = ev.value(e, scope, order)
        if isinstance(v, CallVal) and ev.called_api(v) in _SQUEEZED:
            dims.append(1)
            continue
        return None
    return tuple(dims)


def _returns_zeros(ev: Evaluator, v: Value) -> bool | None:
    """Whether an index map (lambda or def) returns only literal zeros (True), surely something
    else in some entry (False: a parameter or a non-zero number), or cannot be told (None)."""
    if not isinstance(v, FuncVal) or v.scope.node is None:
        return None
    scope = v.scope
    params = {p[0] for p in scope.params}
    returned = [scope.node.body] if isinstance(scope.node, ast.Lambda) else list(scope.returns)
    if len(returned) != 1:
        return None
    body = returned[0]
    elements = body.elts if isinstance(body, (ast.Tuple, ast.List)) else [body]
    verdict: bool | None = True
    for e in elements:
        if isinstance(e, ast.Name) and e.id in params:
            return False
        c = ev.const(e, scope)
        if isinstance(c, (int, float)) and not isinstance(c, bool):
            if c != 0:
                return False
            continue
        verdict = None
    return verdict


__all__ = ["Shape", "array_shape", "block_covers", "dimension", "operand_shapes", "param_shape", "shape_literal",
           "struct_shapes"]
