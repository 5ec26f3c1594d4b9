"""Whether a ``pallas_call`` grid entry is a Python int: the static evaluator and the fixes PAL004
(its rule is in ``kinds/``) and the data rules that ask about static grids share."""
from __future__ import annotations

import re
from dataclasses import dataclass

import ast

from ..analysis import api
from ..analysis.evaluate import CallVal, Const, Decorated, Evaluator, Ext, Order, PartialVal, TupleVal
from ..analysis.findings import Fix, TextEdit
from ..analysis.fixes import add_kwarg, ensure_import
from ..analysis.module import Span
from ..analysis.scopes import Scope

ERROR = "NotImplementedError: Dynamic grid bounds not (yet) supported in GPU interpret mode."
# Shape-like attributes are Python ints even on traced arrays.
_STATIC_ATTRS = {"shape", "ndim", "size", "itemsize", "nbytes"}
# Functions that return Python ints from shapes, whatever the array (traced or not).
_SHAPE_FUNCS = {"builtins.len", "jax.numpy.size", "jax.numpy.ndim", "numpy.size", "numpy.ndim"}
# Functions of static values that return Python ints.
_INT_FUNCS = {
    "builtins.len", "builtins.int", "builtins.max", "builtins.min", "builtins.abs", "builtins.round",
    "builtins.sum", "math.prod", "math.ceil", "math.floor", "math.gcd", "math.lcm", "operator.mul",
    "operator.floordiv", f"{api.PL}.cdiv", f"{api.PL}.next_power_of_2", f"{api.PL}.align_to",
    "jax.numpy.size", "jax.numpy.ndim", "numpy.size", "numpy.ndim", "jax.core.concrete_or_error",
}


@dataclass(frozen=True)
class Staticness:
    kind: str  # "static" | "dynamic" | "unknown"
    reason: str = ""
    node: ast.AST | None = None  # where the dynamic value comes from
    scope: Scope | None = None
    jit_param: tuple[Scope, str] | None = None  # a traced jax.jit parameter at the root
    jit_call: object = None  # the jax.jit(f) CallSite whose call traces it (call form)
    param: str = ""

    @staticmethod
    def combine(parts: list["Staticness"]) -> "Staticness":
        for p in parts:
            if p.kind == "dynamic":
                return p
        for p in parts:
            if p.kind == "unknown":
                return p
        return STATIC


STATIC = Staticness("static")
UNKNOWN = Staticness("unknown")


class StaticEvaluator:
    """Decides whether a grid expression is a Python int when the launch is built."""

    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev
        self.depth = 0

    def of(self, node: ast.AST, scope: Scope, order: Order) -> Staticness:
        if self.depth > 30:
            return UNKNOWN
        self.depth += 1
        try:
            return self._of(node, scope, order)
        finally:
            self.depth -= 1

    def _of(self, node: ast.AST, scope: Scope, order: Order) -> Staticness:
        ev = self.ev
        if isinstance(node, ast.Constant):
            return STATIC if isinstance(node.value, int) else UNKNOWN
        if isinstance(node, ast.Name):
            b = ev.lookup(node.id, scope, order)
            if b is None:
                return UNKNOWN
            if b.kind == "param":
                return self._param(b.scope, node.id)
            if b.kind == "assign" and b.node is not None:
                return self.of(b.node, b.scope, ev.order_of(b))
            if b.kind == "unpack":
                v = ev.value(b.node, b.scope, ev.order_of(b))
                if isinstance(v, TupleVal) and 0 <= b.index < len(v.items):
                    n, s, o = v.items[b.index]
                    return self.of(n, s, o)
            return UNKNOWN
        if isinstance(node, ast.Attribute):
            if node.attr in _STATIC_ATTRS:
                return STATIC
            c = ev.const(node, scope, order)
            return STATIC if isinstance(c, int) and not isinstance(c, bool) else UNKNOWN
        if isinstance(node, ast.Subscript):
            base = node.value
            if isinstance(base, ast.Attribute) and base.attr == "shape":
                return STATIC
            return self.of(base, scope, order)
        if isinstance(node, ast.BinOp):
            return Staticness.combine([self.of(node.left, scope, order), self.of(node.right, scope, order)])
        if isinstance(node, ast.UnaryOp):
            return self.of(node.operand, scope, order)
        if isinstance(node, ast.IfExp):
            return Staticness.combine([self.of(node.body, scope, order), self.of(node.orelse, scope, order)])
        if isinstance(node, ast.Call):
            f = ev.value(node.func, scope, order)
            name = ev.ext_name(f)
            code = ev.index.code_of(node, scope)
            if name in _SHAPE_FUNCS:
                return STATIC
            if name in _INT_FUNCS:
                return Staticness.combine([self.of(a, scope, order) for a in node.args])
            if name and name.startswith("jax.numpy."):
                return Staticness("dynamic", f"`{code}` is a JAX array, not a Python int", node, scope)
            if name and name.startswith("numpy."):
                return Staticness("dynamic", f"`{code}` is a NumPy scalar, not a Python int", node, scope)
            if name and (name.startswith("jax.lax.") or name in (f"{api.PL}.program_id", f"{api.PL}.num_programs")):
                return Staticness("dynamic", f"`{code}` is a traced value", node, scope)
            return UNKNOWN
        return UNKNOWN

    def _param(self, fn: Scope | None, name: str, depth: int = 0) -> Staticness:
        ev = self.ev
        if fn is None or fn.kind not in ("function", "lambda"):
            return UNKNOWN
        jitted, (nums, names) = ev.is_jitted(fn)
        if jitted:
            pnames = [p[0] for p in fn.params]
            idx = pnames.index(name) if name in pnames else -1
            if idx not in nums and name not in names:
                return Staticness("dynamic", f"`{name}` is an argument of `{fn.name}`, which jax.jit traces "
                                  f"(it is not in static_argnames)", fn.node, fn.parent, jit_param=(fn, name),
                                  param=name)
            return STATIC
        invs = [i for i in ev.callers_of(fn) if i.how != "passed"]
        if not invs:
            return UNKNOWN
        parts = []
        for inv in invs:
            b = ev.bind_param(inv, name)
            if b is None or b.node is None or b.scope is None:
                parts.append(UNKNOWN)
                continue
            if b.traced:
                jit_call = ev.site_of(inv.site.node.func, inv.site.scope) \
                    if isinstance(inv.site.node.func, ast.Call) else None
                parts.append(Staticness(
                    "dynamic", f"`{name}` is passed to `{fn.name}` through jax.jit, which traces it",
                    inv.site.node, inv.site.scope, jit_call=jit_call, param=name))
                continue
            parts.append(self.of(b.node, b.scope, b.order))
        return Staticness.combine(parts)


def grid_entries(ev: Evaluator, launch) -> list[tuple[ast.expr, Scope, Order]]:
    """The grid's entries, from ``grid=`` or ``grid_spec=GridSpec(grid=...)``."""
    grid = launch.options.get("grid")
    if grid is None:
        spec = launch.options.get("grid_spec")
        if spec is None:
            return []
        v = ev.value(*spec)
        name = ev.called_api(v)
        if not isinstance(v, CallVal) or name not in (api.GRID_SPEC, api.TPU_PREFETCH_GRID_SPEC):
            return []
        node = ev.kwarg(v.site, "grid")
        if node is None:
            node = ev.posarg(v.site, 0 if name == api.GRID_SPEC else 1)
        if node is None:
            return []
        grid = (node, v.site.scope, v.order)
    v = ev.value(*grid)
    if isinstance(v, TupleVal):
        return list(v.items)
    return []  # a scalar grid or something not a literal tuple: a traced scalar fails differently


_SCALAR_CTORS = re.compile(r"^(jax\.numpy|numpy)\.(u?int(8|16|32|64)?|int_|asarray|array)$")


def static_argnames_fix(ev: Evaluator, st: Staticness) -> Fix | None:
    """Add the traced parameter to static_argnames of the jax.jit that traces it."""
    if not st.param:
        return None
    index = ev.index
    quoted = f'("{st.param}",)'
    title = f"Make `{st.param}` static: add it to static_argnames of jax.jit"
    if st.jit_call is not None:
        site = st.jit_call
        return _extend_static(ev, site, st.param, title) or \
            Fix(title, (add_kwarg(index, site.node, site.scope, "static_argnames", quoted),), preferred=True, safe=True)
    if st.jit_param is None:
        return None
    fn = st.jit_param[0]
    v = ev.def_value(fn)
    while isinstance(v, Decorated):
        d = v.decorator
        name = ev.ext_name(d) or ev.called_api(d) or (
            d.func.name if isinstance(d, PartialVal) and isinstance(d.func, Ext) else None)
        if name == api.JIT:
            if isinstance(d, Ext):
                functools_name, imp = ensure_import(index, "functools")
                dec = v.site.node
                text = f"{functools_name}.partial({index.code_of(dec, v.site.scope)}, static_argnames={quoted})"
                edits = [TextEdit(index.span(dec, v.site.scope), text)] + ([imp] if imp else [])
                return Fix(title, tuple(edits), preferred=True, safe=True)
            site = d.site if isinstance(d, (CallVal, PartialVal)) else None
            if site is None:
                return None
            added = add_kwarg(index, site.node, site.scope, "static_argnames", quoted)
            return _extend_static(ev, site, st.param, title) or Fix(title, (added,), preferred=True, safe=True)
        v = v.inner
    return None


def _extend_static(ev: Evaluator, site, param: str, title: str) -> Fix | None:
    node = ev.kwarg(site, "static_argnames")
    if node is None:
        return None
    index = ev.index
    if isinstance(node, (ast.Tuple, ast.List)) and node.elts:
        last = index.span(node.elts[-1], site.scope)
        return Fix(title, (TextEdit(Span(last.end_line, last.end_col, last.end_line, last.end_col),
                                    f', "{param}"'),), preferred=True, safe=True)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return Fix(title, (TextEdit(index.span(node, site.scope), f'({index.code_of(node, site.scope)}, "{param}")'),),
                   preferred=True, safe=True)
    return None


def unwrap_fix(ev: Evaluator, se: "StaticEvaluator", st: Staticness, entry: ast.AST) -> Fix | None:
    """``jnp.int32(x.shape[0] // 4)`` of a static value: use the Python int itself."""
    call = st.node
    if not isinstance(call, ast.Call) or len(call.args) != 1 or call.keywords or st.scope is None:
        return None
    name = ev.ext_name(ev.value(call.func, st.scope, None))
    if not name or not _SCALAR_CTORS.match(name):
        return None
    arg = call.args[0]
    if se.of(arg, st.scope, None).kind != "static":
        return None
    text = ev.index.code_of(arg, st.scope)
    is_rhs = any(b.node is call for bs in st.scope.bindings.values() for b in bs)
    if not (is_rhs or call is entry or isinstance(arg, (ast.Name, ast.Attribute, ast.Subscript, ast.Call,
                                                           ast.Constant))):
        text = f"({text})"
    return Fix(f"Use the Python int `{text}` instead of `{ev.index.code_of(call, st.scope)}`",
               (TextEdit(ev.index.span(call, st.scope), text),), preferred=True, safe=True)


def has_partial_blocks(ev: Evaluator, launch) -> bool:
    """Whether in_specs/out_specs give explicit BlockSpecs (which may not cover whole arrays)."""
    for key in ("in_specs", "out_specs"):
        opt = launch.options.get(key)
        if opt is None:
            continue
        v = ev.value(*opt)
        items = [ev.value(n, s, o) for n, s, o in v.items] if isinstance(v, TupleVal) else [v]
        for it in items:
            if isinstance(it, CallVal) and ev.called_api(it) == f"{api.PL}.BlockSpec" and it.site.positional:
                return True
    return False


__all__ = ["ERROR", "STATIC", "UNKNOWN", "Staticness", "StaticEvaluator", "grid_entries", "has_partial_blocks",
           "static_argnames_fix", "unwrap_fix", "Const"]
