"""Which code a kernel runs when it is traced.

From the kernel function, follow what Python would execute while JAX traces it:
calls of local functions (nested defs, closures, module helpers), functions
handed to ``pl.when``/``pl.loop``/``run_scoped``/``lax`` control flow (traced
even when the condition is a traced value), and decorated nested defs whose
decorator runs them at once. Code under ``if False:`` and functions that are
merely defined (an ``inline_mgpu`` function never called) are not reached.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import api
from .evaluate import CallVal, Const, Decorated, Evaluator, Ext, PartialVal, Value
from .scopes import CallSite, DecoratorSite, Scope

_MAX_REACHED = 400


@dataclass(frozen=True)
class Reached:
    scope: Scope
    chain: tuple[CallSite | DecoratorSite, ...]  # from the kernel down to this scope
    root: Scope | None = None  # the kernel this was reached from


def is_inline_mgpu(ev: Evaluator, v: Value) -> CallVal | None:
    """The ``plgpu.inline_mgpu(...)`` factory call if ``v`` is an inline_mgpu function."""
    for _ in range(8):
        if isinstance(v, Decorated):
            d = v.decorator
            if isinstance(d, CallVal) and ev.called_api(d) == api.INLINE_MGPU:
                return d
            v = v.inner
        elif isinstance(v, CallVal) and isinstance(v.func, CallVal) and ev.called_api(v.func) == api.INLINE_MGPU:
            return v.func
        else:
            return None
    return None


def _runs_decorated(ev: Evaluator, d: DecoratorSite) -> bool:
    """Whether a decorator runs the decorated nested def right away (pl.when, pl.loop...)."""
    v = ev.value(d.node, d.scope, ev.order_of(d))
    name = ev.called_api(v) or ev.ext_name(v)
    if isinstance(v, PartialVal) and isinstance(v.func, Ext):
        name = v.func.name
    if name == api.WHEN and isinstance(v, CallVal) and v.site.positional:
        cond = ev.value(v.site.positional[0], v.site.scope, v.order)
        if isinstance(cond, Const) and isinstance(cond.value, bool) and not cond.value:
            return False  # pl.when(False) never calls it
        return True
    if name in api.TRACING_DECORATORS:
        return True
    return False


def reach(ev: Evaluator, kernels: list[Scope]) -> list[Reached]:
    out: list[Reached] = [Reached(k, (), k) for k in kernels]
    seen = {id(k) for k in kernels}
    i = 0
    while i < len(out) and len(out) < _MAX_REACHED:
        cur = out[i]
        i += 1
        scope = cur.scope
        for cs in scope.calls:
            order = ev.order_of(cs)
            if not ev.guards_hold(cs.guards, scope, order):
                continue
            callee = ev.value(cs.node.func, scope, order)
            if is_inline_mgpu(ev, callee) is not None:
                continue  # a construct, not code the kernel traces into
            name = ev.called_api(callee) or ev.ext_name(callee)
            if name in api.LAUNCH_APIS:
                continue  # a nested launch is a launch of its own
            targets = []
            t = ev.function_of(callee)
            if t is not None:
                targets.append(t)
            for a in cs.all_args:
                av = ev.value(a, scope, order)
                if is_inline_mgpu(ev, av) is not None:
                    continue
                t2 = ev.function_of(av)
                if t2 is not None:
                    targets.append(t2)
            for t in targets:
                if id(t) not in seen:
                    seen.add(id(t))
                    out.append(Reached(t, cur.chain + (cs,), cur.root))
        for d in scope.decorators:
            if id(d.target) in seen:
                continue
            if not ev.guards_hold(d.guards, scope, ev.order_of(d)):
                continue
            if is_inline_mgpu(ev, ev.def_value(d.target)) is not None:
                continue
            if _runs_decorated(ev, d):
                seen.add(id(d.target))
                out.append(Reached(d.target, cur.chain + (d,), cur.root))
    return out
