"""Which code a kernel runs when it is traced.

From the kernel function, follow what Python would execute while JAX traces it:
calls of local functions (nested defs, closures, module helpers), functions
handed to ``pl.when``/``pl.loop``/``run_scoped``/``lax`` control flow (traced
even when the condition is a traced value), and decorated nested defs whose
decorator runs them at once. A local decorator (or decorator factory) is followed into: the
decorator runs when the def is decorated, and calling the decorated def runs the wrapper it
returns, with the factory's parameters as its call passes them. Code under ``if False:`` and functions that are
merely defined (an ``inline_mgpu`` function never called) are not reached.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import api
from .evaluate import (CallVal, Const, Decorated, Evaluator, Ext, Frame, Frames, FuncVal, Invocation, PartialVal, Value,
                       closure_of)
from .scopes import CallSite, DecoratorSite, Scope

_MAX_REACHED = 400


@dataclass(frozen=True)
class Reached:
    scope: Scope
    chain: tuple[CallSite | DecoratorSite, ...]  # from the kernel down to this scope
    root: Scope | None = None  # the kernel this was reached from
    # What the scope's parameters (and its enclosing functions') hold on the way the kernel
    # reached it (Evaluator.within reads them).
    frames: Frames = ()


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


def _called(ev: Evaluator, callee: Value, cs: CallSite, frames: Frames) -> list[tuple[Scope, Frames]]:
    """The local functions a call runs, each with its frames: the def a callee names through
    partials, jit and API decorators (its parameters bound by this call, unless a local
    decorator stands between: then the wrapper calls it, with arguments the analysis does not
    see), and the wrapper a local decorator or factory made."""
    out: list[tuple[Scope, Frames]] = []
    made = ev.made_by(callee, frames)
    for fn, closure in made:
        inv = ev._as_invocation(callee, cs, fn, ev.order_of(cs)) or \
            (Invocation(cs, fn, "direct") if not isinstance(callee, PartialVal) else None)
        out.append((fn, (Frame(fn, inv, frames, closure),) + closure))
    seen_through = ev.function_of(callee)  # (a def under a local decorator: the wrapper runs it)
    if seen_through is not None and all(fn is not seen_through for fn, _ in made):
        closure = closure_of(seen_through, frames)
        out.append((seen_through, (Frame(seen_through, None, frames, closure),) + closure))
    return out


def reach(ev: Evaluator, kernels: list[Scope]) -> list[Reached]:
    out: list[Reached] = [Reached(k, (), k) for k in kernels]
    seen = {id(k) for k in kernels}
    i = 0

    def add(target: Scope, frames: Frames, cur: Reached, via: CallSite | DecoratorSite) -> None:
        if id(target) not in seen:
            seen.add(id(target))
            out.append(Reached(target, cur.chain + (via,), cur.root, frames))

    while i < len(out) and len(out) < _MAX_REACHED:
        cur = out[i]
        i += 1
        scope = cur.scope
        with ev.within(cur.frames):
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
                for t, frames in _called(ev, callee, cs, cur.frames):
                    add(t, frames, cur, cs)
                for a in cs.all_args:
                    av = ev.value(a, scope, order)
                    if is_inline_mgpu(ev, av) is not None:
                        continue
                    t2 = ev.function_of(av)
                    if t2 is not None:  # (passed to an API, which fills its parameters)
                        closure = closure_of(t2, cur.frames)
                        add(t2, (Frame(t2, None, cur.frames, closure),) + closure, cur, cs)
            for d in scope.decorators:
                if not ev.guards_hold(d.guards, scope, ev.order_of(d)):
                    continue
                if is_inline_mgpu(ev, ev.def_value(d.target)) is not None:
                    continue
                if _runs_decorated(ev, d):
                    closure = closure_of(d.target, cur.frames)
                    add(d.target, (Frame(d.target, None, cur.frames, closure),) + closure, cur, d)
                    continue
                # A local decorator runs when the def is decorated (a factory's returns it).
                dec = ev.value(d.node, d.scope, ev.order_of(d))
                if ev.is_api_decorator(dec):
                    continue
                for fn, closure in ev.made_by(dec, cur.frames):
                    add(fn, (Frame(fn, None, cur.frames, closure, applied_to=FuncVal(d.target)),) + closure, cur, d)
    return out
