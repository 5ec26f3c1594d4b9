"""What a launch hands its kernel, counted where the code spells it out.

JAX calls a Pallas kernel with one argument per operand as the launch is applied to it (a
tuple operand arrives as one tuple of Refs: measured under jax 0.12.0.1), the scalar-prefetch
operands of a grid spec being the first operands; then one per entry of ``out_shape`` /
``out_type`` when it is a tuple or list (one for anything else); then one per ``scratch_shapes``
/ ``scratch_types`` entry (also inside a grid spec). Every count here is surely so, or None: a
``*args`` the analysis cannot spread, an ``out_shape`` built where it cannot see, or a scratch
list it cannot read leaves the whole count unknown, and rules built on it stay quiet.
"""
from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import api
from .applications import applied_at, kernel_operand_params
from .evaluate import CallVal, Evaluator, Ext, Order, ParamVal, PartialVal, TupleVal, Value, launch_fact
from .scopes import CallSite, Scope
from .shapes import _flat_args as spread_args
from .shapes import array_shape, traced_by_name

if TYPE_CHECKING:  # pragma: no cover
    from .launches import Launch

_MAX_NEST = 4
# jnp functions whose result is a list or tuple of arrays, not one array.
_JNP_SEQUENCES = {f"jax.numpy.{n}" for n in ("split", "array_split", "hsplit", "vsplit", "dsplit", "meshgrid",
                                              "unstack", "nonzero", "where", "unravel_index", "broadcast_arrays",
                                              "histogram", "linalg.eigh", "linalg.svd", "linalg.qr", "unique",
                                              "indices", "divmod", "frexp", "modf")}
_ARRAY_MAKERS = {"jax.ShapeDtypeStruct", "jax.device_put"}


@dataclass(frozen=True)
class RefCounts:
    """The Refs one launch passes its kernel, by kind."""

    operands: int  # operands as passed (scalar-prefetch operands included)
    outputs: int
    scratch: int
    scalar_prefetch: int = 0  # how many of the operands are scalar-prefetch operands

    @property
    def total(self) -> int:
        return self.operands + self.outputs + self.scratch

    def words(self) -> str:
        """``3 (2 inputs, 1 output)``: the count and what it is made of."""
        parts = []
        if self.scalar_prefetch:
            parts.append(_plural(self.scalar_prefetch, "scalar-prefetch operand"))
        parts.append(_plural(self.operands - self.scalar_prefetch, "input"))
        parts.append(_plural(self.outputs, "output"))
        if self.scratch:
            parts.append(_plural(self.scratch, "scratch buffer"))
        return f"{self.total} ({', '.join(parts)})"


@dataclass(frozen=True)
class KernelArity:
    """How many positional Refs the kernel accepts: ``low`` to ``high`` (None: any number more)."""

    low: int
    high: int | None
    params: tuple[str, ...]

    def accepts(self, n: int) -> bool:
        return self.low <= n and (self.high is None or n <= self.high)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def kernel_arity(launch: Launch) -> KernelArity | None:
    """The kernel's positional parameters (a ``functools.partial``'s keywords taken out), or None
    when the kernel is not one known function, or takes keyword-only parameters it must be given
    (a dict of scratch shapes fills those: not followed)."""
    if len(launch.kernels) != 1 or launch.kernel is None:
        return None
    names = kernel_operand_params(launch)
    if names is None:
        return None
    kernel = launch.kernel
    by_name = {p[0]: p for p in kernel.params}
    if any(p[2] == "kwonly" and p[1] is None and p[0] not in _partial_keywords(launch) for p in kernel.params):
        return None
    required = sum(1 for n in names if by_name[n][1] is None)
    star = any(p[2] == "star" for p in kernel.params)
    return KernelArity(required, None if star else len(names), tuple(names))


def _partial_keywords(launch: Launch) -> set[str]:
    kv = launch.kernel_value
    return set(kv.site.keywords) if isinstance(kv, PartialVal) else set()


def ref_counts(ev: Evaluator, launch: Launch) -> RefCounts | None:
    """The Refs the launch passes its kernel, where every part is known (None otherwise)."""
    if launch.api.name not in (api.PALLAS_CALL, api.PL_KERNEL, api.PLGPU_KERNEL):
        return None
    outputs = output_leaves(ev, launch)
    if outputs is None:
        return None
    scratch = scratch_leaves(ev, launch)
    if scratch is None:
        return None
    operands = operand_leaves(ev, launch)
    if operands is None:
        return None
    return RefCounts(operands, outputs, scratch, scalar_prefetch_count(ev, launch) or 0)


@dataclass(frozen=True)
class AliasPairs:
    """A launch's ``input_output_aliases`` written as a dict of int constants: its pairs in
    order, and where the dict is (to underline it)."""

    pairs: tuple[tuple[int, int], ...]
    node: ast.Dict
    scope: Scope


def alias_pairs(ev: Evaluator, launch: Launch, option: tuple | None) -> AliasPairs | None:
    """The pairs JAX checks after tracing the kernel (``option``: the launch's
    ``input_output_aliases`` as ``Hit.launch_option`` gives it); None where a key or value is not
    an int constant, or where the kernel's arity error comes first."""
    if option is None:
        return None
    node, scope, order = option
    if not isinstance(node, ast.Dict):
        return None
    pairs = []
    for k, v in zip(node.keys, node.values):
        i, o = (ev.const(k, scope, order) if k is not None else None), ev.const(v, scope, order)
        if not (isinstance(i, int) and isinstance(o, int)) or isinstance(i, bool) or isinstance(o, bool):
            return None
        pairs.append((i, o))
    arity, counts = kernel_arity(launch), ref_counts(ev, launch)
    if arity is not None and counts is not None and not arity.accepts(counts.total):
        return None  # (the kernel's arity error comes first)
    return AliasPairs(tuple(pairs), node, scope)


def grid_spec_call(ev: Evaluator, launch: Launch) -> CallVal | None:
    """The ``pl.GridSpec(...)`` / ``pltpu.PrefetchScalarGridSpec(...)`` the launch is given."""
    opt = launch.options.get("grid_spec")
    if opt is None:
        return None
    v = ev.returned(ev.value(*opt))  # (through a small helper that builds it)
    if isinstance(v, CallVal) and ev.called_api(v) in (api.GRID_SPEC, api.TPU_PREFETCH_GRID_SPEC):
        return v
    return None


def spec_keyword(ev: Evaluator, spec: CallVal, keyword: str) -> tuple[ast.expr, Scope, Order] | None:
    """A keyword argument of a grid spec call, as (node, scope, order)."""
    node = ev.kwarg(spec.site, keyword)
    return (node, spec.site.scope, ev.order_of(spec.site)) if node is not None else None


def scalar_prefetch_count(ev: Evaluator, launch: Launch) -> int | None:
    """``num_scalar_prefetch`` of the launch's grid spec (0 without one; None when unknown)."""
    if "grid_spec" not in launch.options:
        return 0
    spec = grid_spec_call(ev, launch)
    if spec is None:
        return None
    got = spec_keyword(ev, spec, "num_scalar_prefetch")
    if got is None:
        return 0 if ev.called_api(spec) == api.GRID_SPEC else (None if ev.posarg(spec.site, 0) is not None else 0)
    n = ev.const(*got)
    return n if isinstance(n, int) and not isinstance(n, bool) else None


def output_leaves(ev: Evaluator, launch: Launch) -> int | None:
    """How many output arguments ``out_shape`` / ``out_type`` gives the kernel: one per entry of
    a literal tuple or list, one for a single ShapeDtypeStruct or array."""
    opt = launch.options.get("out_shape") or launch.options.get("out_type")
    if opt is None:
        return None
    v = ev.value(*opt)
    if not _is_out_tree(ev, *opt) or _mutated(*opt):
        return None  # (an out_shape entry that is no array fails before the kernel is traced)
    return len(v.items) if isinstance(v, TupleVal) else 1


def _is_out_tree(ev: Evaluator, node: ast.expr, scope: Scope, order: Order, depth: int = 0) -> bool:
    """``node`` is a ShapeDtypeStruct or array, or a literal tuple or list of them."""
    v = ev.value(node, scope, order)
    if isinstance(v, TupleVal):
        return depth < _MAX_NEST and all(_is_out_tree(ev, *item, depth=depth + 1) for item in v.items)
    return is_array(ev, node, scope, order, v)


_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "__setitem__"})


def _mutated(node: ast.expr, scope: Scope, order: Order = None) -> bool:
    """A list held by name ``node`` may change after it is built (``specs.append(...)``,
    ``specs += [...]``, ``specs[0] = ...``): its literal is then not what the launch gets."""
    if not isinstance(node, ast.Name):
        return False
    fn = scope
    while fn.kind not in ("function", "lambda", "module") and fn.parent is not None:
        fn = fn.parent
    for s in fn.walk():
        for cs in s.calls:
            func = cs.node.func
            if isinstance(func, ast.Attribute) and func.attr in _MUTATORS and \
                    isinstance(func.value, ast.Name) and func.value.id == node.id:
                return True
    if fn.kind == "module" or fn.node is None:
        return False  # (module level: method calls above are what is written)
    for n in ast.walk(fn.node):
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == node.id:
            return True
        if isinstance(n, (ast.Assign, ast.AugAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == node.id
                   for t in targets):
                return True
    return False


def is_array(ev: Evaluator, node: ast.expr, scope: Scope, order: Order, value: Value | None = None,
             depth: int = 0) -> bool:
    """``node`` surely is one array (or ShapeDtypeStruct): a pytree leaf. A parameter is one when
    every caller passes one."""
    v = value if value is not None else ev.value(node, scope, order)
    if isinstance(v, TupleVal):
        return False
    if array_shape(ev, node, scope, order) is not None:
        return True
    if isinstance(v, ParamVal) and depth < _MAX_NEST:
        bound = [ev.bind_param(inv, v.name) for inv in ev.callers_of(v.scope) if inv.how != "passed"]
        return bool(bound) and all(b is not None and b.node is not None and b.scope is not None and not b.default
                                   and is_array(ev, b.node, b.scope, b.order, depth=depth + 1) for b in bound)
    if isinstance(v, CallVal):
        called = ev.called_api(v) or ""
        return called in _ARRAY_MAKERS or (called.startswith("jax.numpy.") and called not in _JNP_SEQUENCES
                                           and called.count(".") == 2)
    return False


def scratch_leaves(ev: Evaluator, launch: Launch) -> int | None:
    """How many scratch Refs the launch gives its kernel: each entry of a literal list or tuple
    that is a memory-space allocation (``pltpu.VMEM(...)``, a semaphore type...); 0 with none."""
    opt = launch.options.get(launch.api.scratch_keyword)
    spec = grid_spec_call(ev, launch)
    if "grid_spec" in launch.options and spec is None:
        return None  # (the grid spec may hold scratch the analysis cannot see)
    in_spec = spec_keyword(ev, spec, "scratch_shapes") if spec is not None else None
    if opt is not None and in_spec is not None:
        return None  # (JAX rejects the pair before it traces the kernel)
    opt = opt or in_spec
    if opt is None:
        return 0
    v = ev.value(*opt)
    if not isinstance(v, TupleVal) or _mutated(*opt):
        return None
    for item in v.items:
        if not is_allocation(ev, ev.value(*item)):
            return None
    return len(v.items)


def is_allocation(ev: Evaluator, v: Value) -> bool:
    """A scratch entry that gives the kernel exactly one Ref: a Pallas memory-space or semaphore
    allocation."""
    name = ev.called_api(v) if isinstance(v, CallVal) else ev.ext_name(v) if isinstance(v, Ext) else None
    return name is not None and name.startswith(api.PL + ".")


def applications(ev: Evaluator, launch: Launch) -> list[CallSite]:
    """Where the built launch is applied to its operands: its own calls, and
    ``jax.jit(launch)(...)`` / ``.trace(...)`` / ``.lower(...)`` of a decorated launch."""
    out = list(applied_at(ev, launch))
    if launch.decorator is not None and launch.kernel is not None:
        for inv in ev.callers_of(launch.kernel):
            if inv.how == "passed":
                out += _jit_applications(ev, inv.site)
    return out


def _jit_applications(ev: Evaluator, site: CallSite) -> list[CallSite]:
    if ev.called_api(ev.value(site.node, site.scope, ev.order_of(site))) != api.JIT:
        return []
    out = []
    for cs in site.scope.calls:
        func = cs.node.func
        if func is site.node or (isinstance(func, ast.Attribute) and func.value is site.node
                                 and func.attr in ("trace", "lower")):
            out.append(cs)
    return out


def operand_leaves(ev: Evaluator, launch: Launch) -> int | None:
    """How many operands every application of the launch passes (a pytree operand is one); None
    when there is no application, a ``*args`` cannot be spread, or they disagree."""
    counts = set()
    sites = applications(ev, launch)
    if not sites:
        return None
    for cs in sites:
        if cs.node.keywords:
            return None
        args = _flat_args(ev, cs)
        if args is None:
            return None
        counts.add(len(args))
    return counts.pop() if len(counts) == 1 else None


def flat_operand_count(ev: Evaluator, launch: Launch) -> int | None:
    """How many arrays the operands flatten into (what ``input_output_aliases`` keys index),
    agreed by every application; None where an operand may be a pytree the code does not show."""
    counts = set()
    sites = applications(ev, launch)
    for cs in sites:
        args = _flat_args(ev, cs) if not cs.node.keywords else None
        if args is None:
            return None
        leaves = [_leaf_count(ev, *a) for a in args]
        if any(n is None for n in leaves):
            return None
        counts.add(sum(leaves))  # type: ignore[arg-type]
    return counts.pop() if len(counts) == 1 else None


def flat_output_count(ev: Evaluator, launch: Launch) -> int | None:
    """How many arrays ``out_shape`` / ``out_type`` flattens into (what alias values index)."""
    opt = launch.options.get("out_shape") or launch.options.get("out_type")
    return _leaf_count(ev, *opt) if opt is not None and not _mutated(*opt) else None


def _leaf_count(ev: Evaluator, node: ast.expr, scope: Scope, order: Order, depth: int = 0) -> int | None:
    v = ev.value(node, scope, order)
    if isinstance(v, TupleVal):
        if depth >= _MAX_NEST or _mutated(node, scope):
            return None
        leaves = [_leaf_count(ev, *item, depth=depth + 1) for item in v.items]
        return None if any(n is None for n in leaves) else sum(leaves)  # type: ignore[arg-type]
    return 1 if is_array(ev, node, scope, order, v) else None


def _flat_args(ev: Evaluator, cs: CallSite) -> list[tuple[ast.expr, Scope, Order]] | None:
    order = ev.order_of(cs)
    out: list[tuple[ast.expr, Scope, Order]] = []
    for a in cs.node.args:
        if isinstance(a, ast.Starred):
            v = ev.value(a.value, cs.scope, order)
            if not isinstance(v, TupleVal) or _mutated(a.value, cs.scope):
                return None
            out.extend(v.items)
        else:
            out.append((a, cs.scope, order))
    return out


Leaf = tuple[ast.expr, Scope, Order]
# Array constructors whose dtype is their ``dtype`` argument (position, keyword); without one
# the default depends on jax_enable_x64 and the value: not told.
_DTYPE_ARG = {"jax.ShapeDtypeStruct": 1, "jax.numpy.zeros": 1, "jax.numpy.ones": 1, "jax.numpy.empty": 1,
              "jax.numpy.full": 2, "jax.numpy.zeros_like": 1, "jax.numpy.ones_like": 1,
              "jax.numpy.empty_like": 1, "jax.numpy.full_like": 2, "jax.numpy.asarray": 1,
              "jax.numpy.array": 1, "jax.numpy.arange": None, "numpy.zeros": 1, "numpy.ones": 1,
              "numpy.empty": 1, "numpy.full": 2}
_DTYPE_SCALARS = ("float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint64",
                  "uint32", "uint16", "uint8", "bool_", "complex64", "complex128", "float8_e4m3fn",
                  "float8_e5m2", "int4", "uint4")


def dtype_name(ev: Evaluator, node: ast.expr | None, scope: Scope, order: Order, depth: int = 0) -> str | None:
    """The dtype a dtype expression names (``jnp.bfloat16``, ``np.float32``, ``"int32"``,
    ``x.dtype`` of an array whose dtype is known), or None."""
    if node is None or depth > _MAX_NEST * 2:
        return None
    if isinstance(node, ast.Attribute) and node.attr == "dtype":
        return array_dtype(ev, node.value, scope, order, depth + 1)
    c = ev.const(node, scope, order)
    if isinstance(c, str):
        return c if c in _DTYPE_SCALARS else None
    v = ev.value(node, scope, order)
    if isinstance(v, ParamVal):
        return _param_fact(ev, v, lambda n, s, o, d: dtype_name(ev, n, s, o, d), depth)
    name = ev.ext_name(v)
    if name is None or not name.startswith(("jax.numpy.", "numpy.")):
        return None
    short = name.rsplit(".", 1)[1]
    if short in _DTYPE_SCALARS and name.count(".") == (2 if name.startswith("jax.") else 1):
        return "bool" if short == "bool_" else short
    return None


def array_dtype(ev: Evaluator, node: ast.expr | None, scope: Scope, order: Order, depth: int = 0) -> str | None:
    """The dtype of the array (or ShapeDtypeStruct) ``node`` is, where the code says it: the
    ``dtype`` argument of its constructor, ``.astype(d)``, a name bound to one, or a parameter
    every caller passes one of the same dtype."""
    if node is None or depth > _MAX_NEST * 2:
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "astype" \
            and len(node.args) == 1 and not node.keywords:
        return dtype_name(ev, node.args[0], scope, order, depth + 1)
    v = ev.value(node, scope, order)
    if isinstance(v, ParamVal):
        return _param_fact(ev, v, lambda n, s, o, d: array_dtype(ev, n, s, o, d), depth)
    if isinstance(v, CallVal):
        called = ev.called_api(v)
        at = _DTYPE_ARG.get(called) if called is not None else None
        if at is None:
            return None
        arg = ev.kwarg(v.site, "dtype")
        if arg is None and not v.site.has_star:
            arg = ev.posarg(v.site, at)
        return dtype_name(ev, arg, v.site.scope, ev.order_of(v.site), depth + 1) if arg is not None else None
    return None


def _param_fact(ev: Evaluator, v: ParamVal, fact, depth: int) -> str | None:
    """``fact`` of what every caller passes for parameter ``v`` (``jax.jit(f).trace(*IN)`` too)."""
    found: set[str | None] = set()
    positional = [p[0] for p in v.scope.params if p[2] in ("posonly", "normal")]
    for inv in ev.callers_of(v.scope):
        if inv.how == "passed":
            if v.name not in positional:
                return None
            at = positional.index(v.name)
            lists = [_flat_args(ev, cs) for cs in _jit_applications(ev, inv.site)]
            if not lists or any(a is None or at >= len(a) for a in lists):
                return None
            found.update(fact(*a[at], depth + 1) for a in lists)  # type: ignore[index]
            continue
        b = ev.bind_param(inv, v.name)
        if b is None and inv.how == "direct" and v.name in positional and \
                any(isinstance(a, ast.Starred) for a in inv.site.node.args):
            args = spread_args(ev, inv.site)  # (``launch(*inputs())``: the spread arguments, as shapes.py reads them)
            at = positional.index(v.name)
            if args is None or at >= len(args):
                return None
            found.add(fact(*args[at], depth + 1))
            continue
        if b is None or b.node is None or b.scope is None or b.default:
            return None
        found.add(fact(b.node, b.scope, b.order, depth + 1))
    if v.name in positional:  # (``f.trace(*IN)`` of a def a jax.jit decorator makes jitted)
        at = positional.index(v.name)
        for cs in traced_by_name(ev, v.scope):
            args = spread_args(ev, cs)
            if args is None or at >= len(args):
                return None
            found.add(fact(*args[at], depth + 1))
    return found.pop() if len(found) == 1 and None not in found else None


def aval_words(shape: tuple[int, ...] | None, dtype: str | None) -> str:
    """``float32[16,128]`` as JAX prints an abstract value; ``?`` for a part not known."""
    dims = "?" if shape is None else ",".join(map(str, shape))
    return f"{dtype or '?'}[{dims}]"


@launch_fact
def flat_operand_leaves(ev: Evaluator, launch: Launch) -> list[list[Leaf]] | None:
    """Per application of the launch, its operands flattened into array leaves (what
    ``input_output_aliases`` keys index); None where a leaf cannot be told."""
    out = []
    for cs in applications(ev, launch):
        args = _flat_args(ev, cs) if not cs.node.keywords else None
        if args is None:
            return None
        leaves: list[Leaf] = []
        for a in args:
            got = _leaves(ev, *a)
            if got is None:
                return None
            leaves += got
        out.append(leaves)
    return out or None


@launch_fact
def flat_output_leaves(ev: Evaluator, launch: Launch) -> list[Leaf] | None:
    """``out_shape`` / ``out_type`` flattened into its ShapeDtypeStructs (what alias values index)."""
    opt = launch.options.get("out_shape") or launch.options.get("out_type")
    return _leaves(ev, *opt) if opt is not None and not _mutated(*opt) else None


def _leaves(ev: Evaluator, node: ast.expr, scope: Scope, order: Order, depth: int = 0) -> list[Leaf] | None:
    v = ev.value(node, scope, order)
    if isinstance(v, TupleVal):
        if depth >= _MAX_NEST or _mutated(node, scope):
            return None
        out: list[Leaf] = []
        for item in v.items:
            got = _leaves(ev, *item, depth=depth + 1)
            if got is None:
                return None
            out += got
        return out
    return [(node, scope, order)] if is_array(ev, node, scope, order, v) else None


__all__ = ["AliasPairs", "KernelArity", "Leaf", "RefCounts", "applications", "array_dtype", "aval_words", "dtype_name",
           "alias_pairs", "flat_operand_leaves", "flat_output_leaves", "flat_operand_count", "flat_output_count",
           "grid_spec_call", "is_allocation", "is_array", "kernel_arity",
           "operand_leaves", "output_leaves", "ref_counts", "scalar_prefetch_count", "scratch_leaves", "spec_keyword"]


# Control flow whose result has the structure of one of its arguments (the loop carry).
_CARRY_ARG = {"jax.lax.fori_loop": 3, "jax.lax.while_loop": 2}
# Calls that always return a tuple: (carry, stacked outputs).
_ALWAYS_TUPLE = {"jax.lax.scan"}
# Array methods: called on an array, they return an array.
_ARRAY_METHODS = frozenset({"astype", "sum", "max", "min", "mean", "prod", "reshape", "transpose", "squeeze",
                            "ravel", "flatten", "clip", "round", "cumsum", "any", "all", "argmax", "argmin",
                            "swapaxes", "dot"})


def returned_values(ev: Evaluator, kernel: Scope) -> list[ast.expr]:
    """The ``return <value>`` expressions of a kernel ``def`` whose value is surely not None
    (a bare ``return`` or one the analysis cannot tell is left out)."""
    if kernel.kind != "function" or not isinstance(kernel.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_nodes(kernel.node)):
        return []  # (a generator returns a generator object: another story)
    return [r for r in kernel.returns if _surely_not_none(ev, kernel, r, 0)]


def _own_nodes(fn: ast.AST):
    """The nodes of ``fn``'s body, not those of functions, lambdas or classes defined in it."""
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))


def _surely_not_none(ev: Evaluator, kernel: Scope, node: ast.expr, depth: int) -> bool:
    """``node`` (in the kernel's body) evaluates to something other than None on every path:
    a literal, an operator's result, a Ref or a Ref's load, a jnp result, a loop's non-None carry,
    or a local name every assignment of which is such a value."""
    if depth > _MAX_NEST:
        return False
    if isinstance(node, ast.Constant):
        return node.value is not None
    if isinstance(node, (ast.Tuple, ast.List, ast.Dict, ast.Set, ast.BinOp, ast.UnaryOp, ast.Compare,
                         ast.ListComp, ast.DictComp, ast.SetComp, ast.JoinedStr)):
        return True
    if isinstance(node, ast.Subscript):
        return _is_ref_param(kernel, node.value)
    if isinstance(node, ast.Name):
        if _is_ref_param(kernel, node):
            return True
        assigned = _local_assignments(kernel, node.id)
        return bool(assigned) and all(_surely_not_none(ev, kernel, v, depth + 1) for v in assigned)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _ARRAY_METHODS and \
                _surely_not_none(ev, kernel, func.value, depth + 1):
            return True  # (a method of an array or a Ref's load; a module is neither)
        called = ev.called_api(ev.value(func, kernel)) or ev.ext_name(ev.value(func, kernel)) or ""
        if called in _ALWAYS_TUPLE:
            return True
        if called in _CARRY_ARG:
            i = _CARRY_ARG[called]
            init = node.args[i] if len(node.args) > i else \
                next((k.value for k in node.keywords if k.arg == "init_val"), None)
            return init is not None and _surely_not_none(ev, kernel, init, depth + 1)
        return called.startswith("jax.numpy.") and called.count(".") == 2 and called not in _JNP_SEQUENCES
    return False


def _is_ref_param(kernel: Scope, node: ast.expr) -> bool:
    """``node`` names one of the kernel's own Ref parameters (no default: the launch fills it)."""
    if not isinstance(node, ast.Name) or _local_assignments(kernel, node.id):
        return False
    return any(name == node.id and default is None and how not in ("star", "kwstar")
               for name, default, how in kernel.params)


def _local_assignments(kernel: Scope, name: str) -> list[ast.expr]:
    """Every value assigned to ``name`` in the kernel's own body; empty when it is bound any other
    way too (a loop target, a with, an augmented or unpacking assignment...)."""
    values: list[ast.expr] = []
    assert kernel.node is not None  # (a kernel is a def or lambda: its scope has a node)
    for n in _own_nodes(kernel.node):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name) and t.id == name:
                    values.append(n.value)
                elif any(isinstance(s, ast.Name) and s.id == name for s in ast.walk(t)):
                    return []
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.target.id == name:
            if n.value is None:
                continue
            values.append(n.value)
        elif isinstance(n, (ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr,
                            ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom, ast.ExceptHandler,
                            ast.comprehension, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound = {s.id for s in ast.walk(n) if isinstance(s, ast.Name) and isinstance(s.ctx, ast.Store)}
            names = set(getattr(n, "names", ()) or ()) if isinstance(n, (ast.Global, ast.Nonlocal)) else set()
            if name in bound or name in names or getattr(n, "name", None) == name:
                return []
    return values


@dataclass(frozen=True)
class GridSpecConflict:
    """A ``pallas_call`` keyword JAX refuses beside ``grid_spec=``: its name, the node given, and
    how JAX shows the value."""

    keyword: str
    node: ast.expr
    scope: Scope
    shown: str


# JAX's order of the checks (pallas_call in jax/_src/pallas/pallas_call.py).
_GRID_SPEC_RIVALS = ("grid", "in_specs", "out_specs", "scratch_shapes")


def grid_spec_conflict(ev: Evaluator, launch: Launch) -> GridSpecConflict | None:
    """The first keyword a ``pallas_call`` given a grid spec also gets, where JAX rejects it: a
    non-empty ``grid`` or ``scratch_shapes``, any ``in_specs`` / ``out_specs``. Only values the
    code spells out count (a wrapper's parameter defaulting to ``pl.no_block_spec`` is fine)."""
    if launch.api.name != api.PALLAS_CALL or grid_spec_call(ev, launch) is None:
        return None
    for keyword in _GRID_SPEC_RIVALS:
        opt = launch.options.get(keyword)
        if opt is None:
            continue
        v = ev.value(*opt)
        if keyword in ("grid", "scratch_shapes"):
            c = ev.const(*opt)
            if isinstance(v, TupleVal) and v.items:
                return GridSpecConflict(keyword, opt[0], opt[1], _shown(ev, opt, c))
            if isinstance(c, int) and not isinstance(c, bool) and c:
                return GridSpecConflict(keyword, opt[0], opt[1], repr(c))
            continue
        if isinstance(v, TupleVal) or (isinstance(v, CallVal) and ev.called_api(v) == f"{api.PL}.BlockSpec"):
            return GridSpecConflict(keyword, opt[0], opt[1], _shown(ev, opt, None))
    return None


def _shown(ev: Evaluator, opt: tuple[ast.expr, Scope, Order], const: object) -> str:
    if isinstance(const, tuple):
        return repr(const)
    return ast.unparse(opt[0])


# --- grid entries that are surely not integers (GridSpec.__init__ in jax/_src/pallas/core.py) ---

# NumPy functions whose result, for a Python number, is a NumPy float scalar (``np.ceil(7 / 2)``
# is ``np.float64(4.0)``): GridSpec accepts ints and jax.Arrays only.
_NUMPY_FLOAT_RESULTS = {f"numpy.{n}" for n in ("ceil", "floor", "round", "rint", "trunc", "sqrt", "float64",
                                               "float32", "true_divide", "divide")}
_NUMPY_ROUNDING = {"numpy.ceil": math.ceil, "numpy.floor": math.floor}
_INT_RESULTS = {"builtins.int", "builtins.len", "math.ceil", "math.floor", "math.prod", "math.trunc"}
_NUMBER_OPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)


def python_number_kind(ev: Evaluator, node: ast.AST, scope: Scope, order: Order = None,
                       depth: int = 0) -> str | None:
    """What a scalar expression surely is on the host: ``"int"``, ``"float"`` (a Python float)
    or ``"numpy-float"`` (a NumPy float scalar); None when not sure (a parameter no caller is
    followed for, a jnp value, anything not spelled out)."""
    if depth > _MAX_NEST * 2:
        return None
    c = ev.const(node, scope, order)
    if isinstance(c, bool):
        return None
    if isinstance(c, int):
        return "int"
    if isinstance(c, float):
        return "float"
    if isinstance(node, ast.Name):
        b = ev.lookup(node.id, scope, order)
        if b is None or b.scope is None:
            return None
        if b.kind == "param":
            return _param_number_kind(ev, b.scope, node.id, depth)
        if b.kind != "assign" or b.node is None:
            return None
        return python_number_kind(ev, b.node, b.scope, ev.order_of(b), depth + 1)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return python_number_kind(ev, node.operand, scope, order, depth + 1)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        return "int"  # (an array's shape holds Python ints)
    if isinstance(node, ast.Attribute) and node.attr in ("ndim", "size") and array_shape(
            ev, node.value, scope, order) is not None:
        return "int"
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, *_NUMBER_OPS)):
        left = python_number_kind(ev, node.left, scope, order, depth + 1)
        right = python_number_kind(ev, node.right, scope, order, depth + 1)
        if left is None or right is None:
            return None
        if "numpy-float" in (left, right):
            return "numpy-float"
        if isinstance(node.op, ast.Div) or "float" in (left, right):
            return "float"
        return "int"
    if isinstance(node, ast.Call) and not node.keywords:
        called = ev.called_api(ev.value(node, scope, order))
        args = [python_number_kind(ev, a, scope, order, depth + 1) for a in node.args]
        if called in _INT_RESULTS and len(node.args) == 1:
            return "int"
        if called == f"{api.PL}.cdiv" and args and all(a == "int" for a in args):
            return "int"
        if called == "builtins.float" and len(node.args) == 1:
            return "float"
        if called in _NUMPY_FLOAT_RESULTS and args and all(a is not None for a in args):
            return "numpy-float"
    return None


def _param_sources(ev: Evaluator, fn: Scope, name: str) -> list[tuple[ast.expr, Scope, Order, tuple]] | None:
    """What fills a helper's parameter: the call the analysis followed into it, else every
    caller's argument (None when one cannot be told, or is jit-traced: then it is an array)."""
    got = ev.argument_for(fn, name)
    if got is not None:
        return [got]
    sources = []
    for inv in ev.callers_of(fn):
        bound = ev.bind_param(inv, name)
        if bound is None or bound.node is None or bound.scope is None or bound.traced:
            return None
        sources.append((bound.node, bound.scope, bound.order, ev.frames))
    return sources or None


def _param_number_kind(ev: Evaluator, fn: Scope, name: str, depth: int) -> str | None:
    """A helper's parameter: the kind every source of it has (all the same), else None."""
    kinds = set()
    for node, scope, order, frames in _param_sources(ev, fn, name) or ():
        with ev.within(frames):
            kinds.add(python_number_kind(ev, node, scope, order, depth + 1))
    return kinds.pop() if len(kinds) == 1 else None


@dataclass(frozen=True)
class NonIntegerGrid:
    """A grid JAX rejects: the grid node, the first entry that is no integer (the grid itself
    for a bare scalar), how JAX shows the grid (None: not known), and the error it raises."""

    node: ast.expr
    scope: Scope
    entry: ast.AST
    shown: str | None
    error: str


def _grid_option(ev: Evaluator, launch: Launch) -> tuple[ast.expr, Scope, Order, tuple] | None:
    """The ``grid`` a ``pallas_call`` or its grid spec is given (a grid spec's positional too),
    with the frames its helper's parameters are read in."""
    if launch.api.name != api.PALLAS_CALL:
        return None
    spec = grid_spec_call(ev, launch)
    if spec is not None:
        node = ev.kwarg(spec.site, "grid")
        if node is None:
            node = ev.posarg(spec.site, 0 if ev.called_api(spec) == api.GRID_SPEC else 1)
        return (node, spec.site.scope, ev.order_of(spec.site), spec.frames) if node is not None else None
    opt = launch.options.get("grid")
    return (*opt, ev.frames) if opt is not None else None


def non_integer_grid(ev: Evaluator, launch: Launch) -> NonIntegerGrid | None:
    """The launch's grid where an entry is surely a Python or NumPy float (``n / BLOCK``,
    ``np.ceil(...)``), or the grid is itself a float; every other entry must be surely known
    too, so the message can show the grid as JAX does."""
    opt = _grid_option(ev, launch)
    if opt is None:
        return None
    node, scope, order, frames = opt
    with ev.within(frames):
        return _non_integer_grid(ev, node, scope, order)


def _non_integer_grid(ev: Evaluator, node: ast.expr, scope: Scope, order: Order) -> NonIntegerGrid | None:
    v = ev.value(node, scope, order)
    if isinstance(v, TupleVal):
        kinds = [python_number_kind(ev, *item) for item in v.items]
        bad = next((item for item, k in zip(v.items, kinds) if k in ("float", "numpy-float")), None)
        if bad is None:
            return None
        shown = _grid_shown(ev, v.items, kinds)
        return NonIntegerGrid(node, scope, bad[0], shown,
                              f"ValueError: Grid must be a tuple of integers or jax.Array, got "
                              f"{shown or f'a grid whose entry `{ast.unparse(bad[0])}` is a float'}")
    kind = python_number_kind(ev, node, scope, order)
    if kind == "float":
        return NonIntegerGrid(node, scope, node, None, "TypeError: 'float' object is not subscriptable")
    if kind == "numpy-float":
        return NonIntegerGrid(node, scope, node, None, "IndexError: invalid index to scalar variable.")
    return None


def _grid_shown(ev: Evaluator, items, kinds: list[str | None]) -> str | None:
    """``(8.0,)`` / ``(np.float64(8.0), 4)``: the grid as JAX prints it, where every entry folds."""
    shown = []
    for (node, scope, order), kind in zip(items, kinds):
        number = _fold_number(ev, node, scope, order)
        if number is None:
            return None
        shown.append(f"np.float64({float(number)!r})" if kind == "numpy-float" else repr(number))
    return f"({shown[0]},)" if len(shown) == 1 else f"({', '.join(shown)})"


def _fold_number(ev: Evaluator, node: ast.AST, scope: Scope, order: Order, depth: int = 0) -> float | int | None:
    c = ev.const(node, scope, order)
    if isinstance(c, (int, float)) and not isinstance(c, bool):
        return c
    if depth > _MAX_NEST * 2:
        return None
    if isinstance(node, ast.Name):
        b = ev.lookup(node.id, scope, order)
        if b is not None and b.scope is not None and b.kind == "assign" and b.node is not None:
            return _fold_number(ev, b.node, b.scope, ev.order_of(b), depth + 1)
        if b is not None and b.scope is not None and b.kind == "param":
            numbers = set()
            for n, sc, o, frames in _param_sources(ev, b.scope, node.id) or ():
                with ev.within(frames):
                    numbers.add(_fold_number(ev, n, sc, o, depth + 1))
            return numbers.pop() if len(numbers) == 1 else None
        return None
    if isinstance(node, ast.BinOp):
        a = _fold_number(ev, node.left, scope, order, depth + 1)
        b2 = _fold_number(ev, node.right, scope, order, depth + 1)
        if a is None or b2 is None:
            return None
        ops = {ast.Add: lambda: a + b2, ast.Sub: lambda: a - b2, ast.Mult: lambda: a * b2,
               ast.Div: lambda: a / b2 if b2 else None, ast.FloorDiv: lambda: a // b2 if b2 else None}
        op = ops.get(type(node.op))
        return op() if op is not None else None
    if isinstance(node, ast.Call) and len(node.args) == 1:
        rounding = _NUMPY_ROUNDING.get(ev.called_api(ev.value(node, scope, order)) or "")
        if rounding is None:
            return None
        inner = _fold_number(ev, node.args[0], scope, order, depth + 1)
        return None if inner is None else float(rounding(inner))
    return None


# --- out_shape leaves that are no array (_convert_out_shape_to_aval in jax/_src/pallas/core.py) ---

_DTYPE_NAMES = frozenset({"float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64",
                          "uint8", "uint16", "uint32", "uint64", "bool_", "complex64", "complex128"})
_JNP_SCALAR_TYPE = "<class 'jax._src.numpy.scalar_types._ScalarMeta'>"


@dataclass(frozen=True)
class InvalidOutShape:
    """The first ``out_shape`` leaf JAX cannot make an array type of: the ``out_shape`` node, the
    leaf (a node inside it, or a shape it flattens into ints), and the type JAX names (None: a
    dtype or an int, not told apart)."""

    node: ast.expr
    scope: Scope
    leaf: ast.AST
    type_shown: str | None


def invalid_out_shape(ev: Evaluator, launch: Launch) -> InvalidOutShape | None:
    """``pallas_call``'s ``out_shape`` where, flattened as a pytree, the first leaf that is not
    surely an array / ShapeDtypeStruct is surely an int (a shape tuple flattens into its ints)
    or a dtype; any leaf before it not surely known leaves it unknown (None)."""
    if launch.api.name != api.PALLAS_CALL:
        return None
    opt = launch.options.get("out_shape")
    if opt is None or _mutated(*opt):
        return None
    leaves: list[tuple[str, ast.AST | None, str | None]] = []
    if not _out_leaves(ev, *opt, leaves, depth=0):
        return None
    pending_shape = None  # a shape of unknown rank: ints, or nothing for a 0-d array
    for verdict, leaf, shown in leaves:
        if verdict == "array":
            continue
        if verdict == "shape":
            pending_shape = pending_shape or leaf
            continue
        if verdict == "bad":
            assert leaf is not None
            return InvalidOutShape(opt[0], opt[1], pending_shape or leaf, None if pending_shape else shown)
        return None  # (a leaf not surely known: JAX may raise something else there)
    return None


def _out_leaves(ev: Evaluator, node: ast.expr, scope: Scope, order: Order,
                leaves: list[tuple[str, ast.AST | None, str | None]], depth: int) -> bool:
    """Appends ``(verdict, leaf, type shown)`` for each pytree leaf of ``node`` in JAX's order:
    "array", "bad", "shape" (an array's shape of unknown rank) or "unknown". False: too deep."""
    if depth > _MAX_NEST:
        return False
    v = ev.value(node, scope, order)
    if isinstance(v, TupleVal):
        return all(_out_leaves(ev, *item, leaves, depth=depth + 1) for item in v.items)
    leaves.append(_out_leaf(ev, node, scope, order, v))
    return True


def _out_leaf(ev: Evaluator, node: ast.expr, scope: Scope, order: Order,
              v: Value) -> tuple[str, ast.AST | None, str | None]:
    if is_array(ev, node, scope, order, v):
        return "array", node, None
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        shape = array_shape(ev, node.value, scope, order)
        if shape:
            return "bad", node, "<class 'int'>"
        return ("shape", node, None) if shape is None and is_array(ev, node.value, scope, order) else \
            ("unknown", None, None)
    if python_number_kind(ev, node, scope, order) == "int":
        return "bad", node, "<class 'int'>"
    name = ev.ext_name(v) or ""
    if name.startswith("jax.numpy.") and name.rsplit(".", 1)[1] in _DTYPE_NAMES:
        return "bad", node, _JNP_SCALAR_TYPE
    if isinstance(node, ast.Attribute) and node.attr == "dtype" and is_array(ev, node.value, scope, order):
        dtype = array_dtype(ev, node.value, scope, order)
        return "bad", node, (f"<class 'numpy.dtypes.{_numpy_dtype_class(dtype)}'>" if dtype else None)
    return "unknown", None, None


def _numpy_dtype_class(dtype: str) -> str:
    """``float32`` -> ``Float32DType`` (NumPy's dtype classes, as ``type(x.dtype)`` shows them)."""
    special = {"bfloat16": "bfloat16", "bool": "BoolDType", "bool_": "BoolDType"}
    if dtype in special:
        return special[dtype]
    return dtype[:1].upper() + dtype[1:] + "DType"


# --- compiler_params given as a dict (hashed as a primitive parameter when lowered) ---

@dataclass(frozen=True)
class CompilerParamsDict:
    """``compiler_params=`` that is a dict: the keyword's value node, the dict written (a
    ``{...}`` display or a ``dict(...)`` call), and its entries by key, each entry's value the
    inner dict's entries (None where a key or an inner dict is not written out plainly)."""

    node: ast.expr
    scope: Scope
    written: ast.expr
    written_scope: Scope
    entries: dict[str, dict[str, ast.expr] | None] | None


def compiler_params_dict(ev: Evaluator, launch: Launch) -> CompilerParamsDict | None:
    """The launch's ``compiler_params`` where it is surely a dict (through names bound once)."""
    opt = launch.options.get("compiler_params")
    if opt is None:
        return None
    found = _dict_written(ev, *opt, depth=0)
    if found is None:
        return None
    written, scope = found
    outer = _dict_entries(ev, written, scope)
    entries = None
    if outer is not None:
        entries = {}
        for key, value in outer.items():
            inner = _dict_written(ev, value, scope, None, depth=0)
            entries[key] = _dict_entries(ev, *inner) if inner is not None else None
    return CompilerParamsDict(opt[0], opt[1], written, scope, entries)


def _dict_written(ev: Evaluator, node: ast.expr, scope: Scope, order: Order,
                  depth: int) -> tuple[ast.expr, Scope] | None:
    if depth > _MAX_NEST:
        return None
    if isinstance(node, ast.Dict):
        return node, scope
    if isinstance(node, ast.Call) and ev.called_api(ev.value(node, scope, order)) == "builtins.dict":
        return node, scope
    if isinstance(node, ast.Name):
        b = ev.lookup(node.id, scope, order)
        if b is not None and b.scope is not None and b.kind == "assign" and isinstance(b.node, ast.expr) \
                and not _mutated(node, scope, order):
            return _dict_written(ev, b.node, b.scope, ev.order_of(b), depth + 1)
    return None


def _dict_entries(ev: Evaluator, node: ast.expr, scope: Scope) -> dict[str, ast.expr] | None:
    """``{"k": v}`` / ``dict(k=v)`` entries, where every key is a written string."""
    if isinstance(node, ast.Dict):
        if not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
            return None
        return {k.value: v for k, v in zip(node.keys, node.values)}  # type: ignore[union-attr]
    if isinstance(node, ast.Call) and not node.args and all(k.arg for k in node.keywords):
        return {k.arg: k.value for k in node.keywords}  # type: ignore[misc]
    return None


# --- scratch_shapes leaves that are no memory-space allocation (get_grid_mapping calls
# ``get_ref_aval()`` on each flattened leaf: jax/_src/pallas/core.py) ---

@dataclass(frozen=True)
class InvalidScratch:
    """The ``scratch_shapes`` node, its first leaf that is surely no allocation, and the type
    JAX names in ``'<type>' object has no attribute 'get_ref_aval'``."""

    node: ast.expr
    scope: Scope
    leaf: ast.AST
    type_words: str


def invalid_scratch(ev: Evaluator, launch: Launch) -> InvalidScratch | None:
    """A ``pallas_call``'s scratch (its own or its grid spec's) whose leaves, in JAX's flattening
    order, are allocations up to one that is surely not: a ``jax.ShapeDtypeStruct``, an int (a
    ``(shape, dtype)`` pair flattens into ints), a ``jnp`` dtype. Unknown first: None."""
    if launch.api.name != api.PALLAS_CALL:
        return None
    spec = grid_spec_call(ev, launch)
    if "grid_spec" in launch.options and spec is None:
        return None
    opt = launch.options.get("scratch_shapes") or (
        spec_keyword(ev, spec, "scratch_shapes") if spec is not None else None)
    if opt is None or _mutated(*opt):
        return None
    leaves: list[tuple[ast.expr, Scope, Order]] = []
    if not _scratch_leaves(ev, *opt, leaves, depth=0):
        return None
    for leaf in leaves:
        v = ev.value(*leaf)
        if is_allocation(ev, v):
            continue
        words = _not_an_allocation(ev, v, *leaf)
        return InvalidScratch(opt[0], opt[1], leaf[0], words) if words else None
    return None


def _scratch_leaves(ev: Evaluator, node: ast.expr, scope: Scope, order: Order,
                    leaves: list[tuple[ast.expr, Scope, Order]], depth: int) -> bool:
    if depth > _MAX_NEST:
        return False
    v = ev.value(node, scope, order)
    if isinstance(v, TupleVal):
        return all(_scratch_leaves(ev, *item, leaves, depth=depth + 1) for item in v.items)
    leaves.append((node, scope, order))
    return True


def _not_an_allocation(ev: Evaluator, v: Value, node: ast.expr, scope: Scope, order: Order) -> str | None:
    """How JAX names the type of a scratch leaf that is surely no allocation (None: not sure)."""
    if isinstance(v, CallVal) and ev.called_api(v) == "jax.ShapeDtypeStruct":
        return "'ShapeDtypeStruct' object"
    if python_number_kind(ev, node, scope, order) == "int":
        return "'int' object"
    name = ev.ext_name(v) or ""
    if name.startswith("jax.numpy.") and name.rsplit(".", 1)[1] in _DTYPE_NAMES:
        return f"type object '{name.rsplit('.', 1)[1]}'"
    return None
