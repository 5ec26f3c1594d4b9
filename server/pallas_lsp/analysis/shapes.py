"""Array shapes the code spells out: ``jnp.ones((8, 128))``, ``jax.ShapeDtypeStruct(x.shape, ...)``,
a parameter every caller passes such an array, and the operands a launch is applied to.

Some errors depend on whether a BlockSpec covers its whole array (the GPU interpreter asserts
``has_trivial_window`` for every block before anything else). That needs the array's shape,
which only the code around the launch says. Every answer is a shape that is surely so, or
None: a shape the analysis cannot tell never counts.
"""
from __future__ import annotations

import ast

from .applications import applied_at, kernel_operand_params, scratch_count
from .evaluate import CallVal, Const, Decorated, Evaluator, FuncVal, Order, PartialVal, TupleVal, Value
from .scopes import CallSite, Scope

Shape = tuple[int, ...]

_MAX_DEPTH = 8
_NP = "jax.numpy."
_FILLED = ({f"{_NP}{n}" for n in ("zeros", "ones", "empty", "full")}
           | {f"numpy.{n}" for n in ("zeros", "ones", "empty", "full")})
# One-argument elementwise functions: the result has the argument's shape.
_ELEMENTWISE = {f"{_NP}{n}" for n in ("cos", "sin", "tan", "exp", "log", "tanh", "abs", "sqrt", "square", "negative",
                                       "sign", "floor", "ceil", "round", "exp2", "log1p", "expm1", "reciprocal")}
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
    if isinstance(node, ast.Subscript) and depth < _MAX_DEPTH:  # ``BLOCK[0]``, ``x.shape[-1]``
        i = ev.const(node.slice, scope, order)
        if isinstance(i, int) and not isinstance(i, bool):
            seq = shape_literal(ev, node.value, scope, order, depth + 1)
            if seq is not None and len(seq) > 1 and -len(seq) <= i < len(seq):
                return seq[i]
    return None


def shape_literal(ev: Evaluator, node: ast.AST | None, scope: Scope, order: Order = None,
                  depth: int = 0) -> Shape | None:
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
        dims = [dimension(ev, e, scope, order, depth + 1) for e in node.elts]
        return None if any(d is None for d in dims) else tuple(dims)  # type: ignore[arg-type]
    if isinstance(node, ast.Name) and depth < _MAX_DEPTH:  # a name bound to a tuple: ``BLOCK = (512, COLS)``
        v = ev.value(node, scope, order)
        if isinstance(v, TupleVal):
            dims = [dimension(ev, *item, depth + 1) for item in v.items]
            return None if any(d is None for d in dims) else tuple(dims)  # type: ignore[arg-type]
    d = dimension(ev, node, scope, order, depth)
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
    if name == f"{_NP}arange" and len(node.args) == 1 and all(k.arg == "dtype" for k in node.keywords):
        return shape_literal(ev, node.args[0], scope, order, depth + 1)
    if name in _ELEMENTWISE and len(node.args) == 1 and not node.keywords:  # ``jnp.cos(x)``
        return array_shape(ev, node.args[0], scope, order, depth + 1)
    if name == f"{_NP}linspace":  # (num: the third argument, 50 when left out)
        num = _arg(ev, site, 2, "num")
        if num is None:
            return (50,) if not site.has_star else None
        n = dimension(ev, num, site.scope, v.order, depth + 1)
        return (n,) if n is not None else None
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
    something else, or when there is no call to tell). ``jax.jit(fn).trace(*IN)`` and
    ``jax.jit(fn)(x)`` are calls of ``fn`` too."""
    if depth > _MAX_DEPTH:
        return None
    shapes = set()
    positional = [p[0] for p in fn.params if p[2] in ("posonly", "normal")]
    for inv in ev.callers_of(fn):
        if inv.how == "passed":
            if name not in positional:
                return None
            at = positional.index(name)
            lists = [_flat_args(ev, cs) for cs in _jit_applications(ev, inv.site)]
            if not lists or any(a is None or at >= len(a) for a in lists):
                return None
            for args in lists:
                shape = array_shape(ev, *args[at], depth + 1)  # type: ignore[index]
                if shape is None:
                    return None
                shapes.add(shape)
            continue
        bound = ev.bind_param(inv, name)
        if bound is None and inv.how == "direct" and name in positional and \
                any(isinstance(a, ast.Starred) for a in inv.site.node.args):
            args = _flat_args(ev, inv.site)  # (``launch(*inputs())``: the spread arguments)
            at = positional.index(name)
            shape = array_shape(ev, *args[at], depth + 1) if args is not None and at < len(args) else None
            if shape is None:
                return None
            shapes.add(shape)
            continue
        if bound is None or bound.node is None or bound.scope is None or bound.default:
            return None
        shape = array_shape(ev, bound.node, bound.scope, bound.order, depth + 1)
        if shape is None:
            return None
        shapes.add(shape)
    if name in positional:
        at = positional.index(name)
        for cs in traced_by_name(ev, fn):
            args = _flat_args(ev, cs)
            shape = array_shape(ev, *args[at], depth + 1) if args is not None and at < len(args) else None
            if shape is None:
                return None
            shapes.add(shape)
    return shapes.pop() if len(shapes) == 1 else None


def traced_by_name(ev: Evaluator, fn: Scope) -> list[CallSite]:
    """``f.trace(*IN)`` / ``f.lower(*IN)`` of a def ``f`` that a ``jax.jit`` decorator makes a
    jitted function: its arguments are ``f``'s (shapes given as ``jax.ShapeDtypeStruct``)."""
    decorated = ev.def_value(fn)
    if not isinstance(decorated, Decorated) or not _jitted(ev, decorated):
        return []  # (only a jitted function has .trace / .lower: nothing to scan for the others)
    out = []
    for method in ("trace", "lower"):
        for cs in ev.calls_named(method):
            func = cs.node.func
            if not (isinstance(func, ast.Attribute) and func.attr == method and isinstance(func.value, ast.Name)
                    and func.value.id == fn.name):
                continue
            v = ev.value(func.value, cs.scope, ev.order_of(cs))
            if isinstance(v, Decorated) and ev.function_of(v) is fn:
                out.append(cs)
    return out


def _jitted(ev: Evaluator, v: Value) -> bool:
    """Whether a decorated def's outermost decorators include ``jax.jit`` (plain or partial)."""
    while isinstance(v, Decorated):
        d = v.decorator
        if ev.ext_name(d) == "jax.jit" or (isinstance(d, CallVal) and ev.called_api(d) == "jax.jit"):
            return True
        if isinstance(d, PartialVal) and ev.ext_name(d.func) == "jax.jit":
            return True
        v = v.inner
    return False


def _jit_applications(ev: Evaluator, site: CallSite) -> list[CallSite]:
    """Where ``jax.jit(f)`` (the call at ``site``) is applied: ``jax.jit(f)(x)``,
    ``jax.jit(f).trace(*IN)``, ``jax.jit(f).lower(*IN)``."""
    if ev.called_api(ev.value(site.node, site.scope, ev.order_of(site))) != "jax.jit":
        return []
    out = []
    for cs in site.scope.calls:
        func = cs.node.func
        if func is site.node or (isinstance(func, ast.Attribute) and func.value is site.node
                                 and func.attr in ("trace", "lower")):
            out.append(cs)
    return out


def _flat_args(ev: Evaluator, cs: CallSite) -> list[tuple[ast.expr, Scope, Order]] | None:
    """The positional arguments of a call, a ``*name`` of a literal list or tuple spread out
    (``f(*IN)`` with ``IN = [jax.ShapeDtypeStruct(...), ...]``); None for a spread the analysis
    cannot see through."""
    order = ev.order_of(cs)
    out: list[tuple[ast.expr, Scope, Order]] = []
    for a in cs.node.args:
        if isinstance(a, ast.Starred):
            v = ev.value(a.value, cs.scope, order)
            if not isinstance(v, TupleVal):
                v = ev.returned(v)  # ``launch(*inputs())`` where ``inputs`` returns a tuple
            if not isinstance(v, TupleVal):
                return None
            out.extend(v.items)
        else:
            out.append((a, cs.scope, order))
    return out


def _forwarded(ev: Evaluator, cs: CallSite, depth: int) -> list[Shape | None] | None:
    """An application ``launch(*args)`` inside a function whose ``*args`` it forwards: the
    shapes of what every caller passes there."""
    if len(cs.node.args) != 1 or not isinstance(cs.node.args[0], ast.Starred) or cs.node.keywords:
        return None
    star = cs.node.args[0].value
    fn = cs.scope
    while fn is not None and fn.kind not in ("function", "lambda"):
        fn = fn.parent if fn.kind != "module" else None
    if fn is None or not isinstance(star, ast.Name):
        return None
    params = fn.params
    if not any(p[2] == "star" and p[0] == star.id for p in params):
        return None  # (not the function's own *args)
    skip = len([p for p in params if p[2] in ("posonly", "normal")])
    per_call: list[list[Shape | None] | None] = []
    for inv in ev.callers_of(fn):
        sites = (_jit_applications(ev, inv.site) if inv.how == "passed"
                 else [inv.site] if inv.how in ("direct", "jit") else [])
        if not sites:
            return None
        for site in sites:
            args = _flat_args(ev, site)
            per_call.append(None if args is None else [array_shape(ev, n, s, o, depth + 1) for n, s, o in args[skip:]])
    return _agreed(per_call)


def _agreed(lists: list[list[Shape | None] | None]) -> list[Shape | None] | None:
    """Operand shapes several calls agree on: None when there is no call, when one cannot be
    told, or when they pass different numbers of operands; a shape on which they differ is None."""
    if not lists or any(shapes is None for shapes in lists):
        return None
    first = lists[0]
    assert first is not None
    if any(len(shapes) != len(first) for shapes in lists):  # type: ignore[arg-type]
        return None
    return [a if all(shapes[i] == a for shapes in lists) else None  # type: ignore[index]
            for i, a in enumerate(first)]


def operand_shapes(ev: Evaluator, applications: list[CallSite]) -> list[Shape | None] | None:
    """The shapes of the operands a launch is applied to, where every application agrees
    (None for an entry the code does not say; None for all when there is no application,
    a ``*args`` the analysis cannot follow, or applications that differ in number of
    operands). ``launch(*args)`` forwarding a function's ``*args`` is followed to its callers."""
    per_call: list[list[Shape | None] | None] = []
    for cs in applications:
        if cs.has_star:
            per_call.append(_forwarded(ev, cs, 0))
        elif cs.node.keywords:
            return None
        else:
            order = ev.order_of(cs)
            per_call.append([array_shape(ev, a, cs.scope, order) for a in cs.node.args])
    return _agreed(per_call)


def struct_shapes(ev: Evaluator, value: Value) -> list[Shape | None] | None:
    """The shapes of an ``out_shape=`` value: one ``jax.ShapeDtypeStruct`` (or array), or a
    literal tuple or list of them."""
    if isinstance(value, TupleVal):
        return [array_shape(ev, n, s, o) for n, s, o in value.items]
    if isinstance(value, CallVal):
        return [array_shape(ev, value.site.node, value.site.scope, value.order)]
    return None


def kernel_ref_shapes(ev: Evaluator, launch) -> dict[str, Shape]:
    """The shapes of the kernel's Ref parameters where the code says them: a ``pl.pallas_call``
    input or output is its BlockSpec's block (squeezed dimensions dropped) or, with no block
    shape or no BlockSpecs, its whole array; a ``plgpu.kernel`` / ``pl.kernel`` operand is its
    whole array. Launches with a grid spec, or a kernel given through ``functools.partial``
    positionally, are not mapped."""
    params = kernel_operand_params(launch) if len(launch.kernels) == 1 else None
    if params is None:
        return {}
    opts = launch.options
    name = launch.api.name
    pallas_call = name == "jax.experimental.pallas.pallas_call"
    if pallas_call and "grid_spec" in opts:
        return {}
    out_opt = opts.get("out_shape") or opts.get("out_type")
    outs = struct_shapes(ev, ev.value(*out_opt)) if out_opt is not None else None
    if outs is None:
        return {}
    n_scratch = scratch_count(ev, launch)
    if n_scratch is None:
        return {}
    n_in = len(params) - n_scratch - len(outs)
    if n_in < 0:
        return {}
    operands = operand_shapes(ev, applied_at(ev, launch)) if n_in else []
    if operands is not None and len(operands) != n_in:
        operands = None
    arrays = list(operands or [None] * n_in) + list(outs)
    specs: list[Value | None] = [None] * len(arrays)
    if pallas_call:
        for key, first, count in (("in_specs", 0, n_in), ("out_specs", n_in, len(outs))):
            got = opts.get(key)
            if got is None:
                continue
            v = ev.value(*got)
            items = [ev.value(n, s_, o) for n, s_, o in v.items] if isinstance(v, TupleVal) else [v]
            if len(items) != count:
                return {}
            specs[first:first + count] = items
    out: dict[str, Shape] = {}
    for param, array, spec in zip(params, arrays, specs):
        shape = array if spec is None else _ref_block(ev, spec, array)
        if shape is not None:
            out[param] = shape
    return out


def _ref_block(ev: Evaluator, spec: Value, array: Shape | None) -> Shape | None:
    """The shape of the Ref a BlockSpec gives the kernel (its block, squeezed dimensions dropped;
    the whole array without a block shape)."""
    if not isinstance(spec, CallVal) or ev.called_api(spec) != "jax.experimental.pallas.BlockSpec":
        return None
    site = spec.site
    block = _arg(ev, site, 0, "block_shape")
    if block is None or ev.const(block, site.scope, spec.order) is None:
        return array
    if not isinstance(block, (ast.Tuple, ast.List)):
        return None
    dims = []
    for e in block.elts:
        if ev.const(e, site.scope, spec.order) is None:
            continue  # (squeezed: not a dimension of the Ref)
        d = dimension(ev, e, site.scope, spec.order)
        if d is None:
            return None
        dims.append(d)
    return tuple(dims)


def block_covers(ev: Evaluator, spec: Value, shape: Shape | None) -> bool | None:
    """Whether a BlockSpec has a trivial window on an array of ``shape`` (JAX's
    ``has_trivial_window``): its block is the whole array and its index map returns literal
    zeros. True or False where the code says so, None where it cannot be told. ``spec`` is
    the BlockSpec call (or None, the default, which is the whole array)."""
    if isinstance(spec, Const) and spec.value is None:
        return True
    if not isinstance(spec, CallVal) or ev.called_api(spec) != "jax.experimental.pallas.BlockSpec":
        return None
    with ev.within(spec.frames):  # (a spec a helper made: its parameters as the helper's call passes them)
        return _block_covers(ev, spec, shape)


def _block_covers(ev: Evaluator, spec: CallVal, shape: Shape | None) -> bool | None:
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


__all__ = ["Shape", "array_shape", "block_covers", "dimension", "kernel_ref_shapes", "operand_shapes", "param_shape",
           "shape_literal", "struct_shapes"]
