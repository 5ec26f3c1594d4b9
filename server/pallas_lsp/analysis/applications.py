"""Where a built launch is applied to its operands, and what it is given there.

Shared by :mod:`.launches` (which finds launches and their contexts) and :mod:`.transforms`
(which asks whether a transformation differentiates a launch's operands): neither imports the
other for these, so neither needs a lazy import.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from .evaluate import CallVal, Decorated, Evaluator, PartialVal, ParamVal, TupleVal, Value
from .scopes import CallSite, Scope

if TYPE_CHECKING:  # pragma: no cover
    from .launches import Launch


def is_built_launch(v: Value, launch: Launch) -> bool:
    """``v`` is the launch itself: its ``pl.pallas_call(...)`` value or its decorated def."""
    return (isinstance(v, CallVal) and v.site is launch.site) or \
        (isinstance(v, Decorated) and launch.decorator is not None and v.site is launch.decorator)


def through_wrappers(ev: Evaluator, v: Value) -> Value:
    """``jax.jit(launch)`` / ``functools.partial(launch, ...)`` -> the launch."""
    for _ in range(4):
        if isinstance(v, PartialVal):
            v = v.func
        elif isinstance(v, CallVal) and ev.called_api(v) == "jax.jit" and v.site.positional:
            v = ev.value(v.site.positional[0], v.site.scope, v.order)
        else:
            break
    return v


def applied_at(ev: Evaluator, launch: Launch, *, chained: bool = True, handed_on: bool = False) -> list[CallSite]:
    """Where a built launch is applied to its operands: ``pl.pallas_call(...)(x)`` (``chained``)
    and ``built(x)`` for each name it is bound to; with ``handed_on``, also where a function
    that returns it or is passed it applies it (``k = make(); k(x)``, ``run(k, x)``)."""
    out = [cs for cs in launch.site.scope.calls if cs.node.func is launch.site.node] \
        if chained and launch.decorator is None else []
    for name in launch.bound_names:
        for cs in calls_that_may_see(ev, name, launch.scope):
            if isinstance(cs.node.func, ast.Name) and cs.node.func.id == name and applies(ev, cs, launch):
                out.append(cs)
    if launch.decorator is not None:  # (a decorated launch traced by name: jax.jit(k).trace(x))
        out += [cs for cs in _traced(ev, launch) if cs not in out]
    if handed_on:
        known = {id(cs) for cs in out}
        out += [cs for cs in _applied_where_handed_on(ev, launch) if id(cs) not in known]
    return out


_MAX_HANDED_ON = 3  # returns and parameters followed from a built launch to where it is applied


def _applied_where_handed_on(ev: Evaluator, launch: Launch) -> list[CallSite]:
    """The calls of a built launch made through the functions that return it and the
    parameters it is passed in: the names that may hold it are gathered first, then each
    call of such a name whose callee surely is the launch is kept."""
    names = set(launch.bound_names)
    out: list[CallSite] = []
    returning = [fn] if (fn := enclosing_function(launch.site.scope)) is not None \
        and any(_denotes(ev, ev.value(r, fn), launch) for r in fn.returns) else []
    seen: set[int] = set()
    for _ in range(_MAX_HANDED_ON):
        later = []
        for fn in returning:
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            for inv in ev.callers_of(fn):
                site = inv.site
                if inv.how == "passed":
                    continue
                if site.use == "assign":
                    names.update(site.targets)
                out += [cs for cs in site.scope.calls if cs.node.func is site.node]  # make()(x)
                for cs in site.scope.calls:  # run(make(), x)
                    names.update(_params_given(ev, cs, lambda a: a is site.node))
                outer = enclosing_function(site.scope)
                if outer is not None and site.node in outer.returns:
                    later.append(outer)
        returning = later
    for _ in range(_MAX_HANDED_ON):  # passed to a function that calls it: its parameter holds it
        grew = False
        for name in list(names):
            for cs in ev.calls_named(name):
                if name not in cs.arg_names:
                    continue
                for param in _params_given(ev, cs, lambda a: isinstance(a, ast.Name) and a.id == name):
                    if param not in names:
                        names.add(param)
                        grew = True
        if not grew:
            break
    for name in names:
        for cs in ev.calls_named(name):
            if isinstance(cs.node.func, ast.Name) and cs.node.func.id == name \
                    and _denotes(ev, ev.value(cs.node.func, cs.scope, ev.order_of(cs)), launch):
                out.append(cs)
    return out


def _params_given(ev: Evaluator, cs: CallSite, is_it) -> list[str]:
    """The parameters of the local function ``cs`` calls that receive an argument ``is_it``
    accepts (the name or the call that holds the launch)."""
    if not any(is_it(a) for a in cs.all_args):
        return []
    fn = ev.function_of(ev.value(cs.node.func, cs.scope, ev.order_of(cs)))
    if fn is None:
        return []
    positional = [p[0] for p in fn.params if p[2] in ("posonly", "normal")]
    out = [positional[i] for i, a in enumerate(cs.node.args)
           if is_it(a) and i < len(positional) and not any(isinstance(b, ast.Starred) for b in cs.node.args[:i])]
    return out + [k.arg for k in cs.node.keywords if k.arg and is_it(k.value)]


def _denotes(ev: Evaluator, v: Value, launch: Launch, depth: int = 0) -> bool:
    """``v`` surely is the built launch: the launch itself, what a function returning it
    returns, or a parameter every caller fills with it."""
    v = through_wrappers(ev, v)
    if is_built_launch(v, launch):
        return True
    if depth >= _MAX_HANDED_ON:
        return False
    if isinstance(v, CallVal):
        fn = ev.function_of(v.func)
        return fn is not None and bool(fn.returns) and \
            all(_denotes(ev, ev.value(r, fn), launch, depth + 1) for r in fn.returns)
    if isinstance(v, ParamVal):
        bound = [ev.bind_param(inv, v.name) for inv in ev.callers_of(v.scope) if inv.how != "passed"]
        return bool(bound) and all(b is not None and b.node is not None and b.scope is not None and
                                   _denotes(ev, ev.value(b.node, b.scope, b.order), launch, depth + 1)
                                   for b in bound)
    return False


def kernel_operand_params(launch: Launch) -> list[str] | None:
    """The kernel's parameters the launch fills by position, in order (those a
    ``functools.partial`` binds by keyword left out); None for a partial that binds some
    positionally, whose mapping is not followed."""
    kernel = launch.kernel
    if kernel is None:
        return None
    names = [p[0] for p in kernel.params if p[2] in ("posonly", "normal")]
    kv = launch.kernel_value
    if isinstance(kv, PartialVal):
        if kv.site.positional[1:] or kv.site.has_star:
            return None
        names = [n for n in names if n not in kv.site.keywords]
    return names


def scratch_count(ev: Evaluator, launch: Launch) -> int | None:
    """How many scratch buffers the launch gives its kernel (``scratch_shapes=`` /
    ``scratch_types=``, a literal list): 0 with none, None where the list cannot be counted."""
    opt = launch.options.get("scratch_shapes") or launch.options.get("scratch_types")
    if opt is None:
        return 0
    v = ev.value(*opt)
    return len(v.items) if isinstance(v, TupleVal) else None


def applies(ev: Evaluator, cs: CallSite, launch: Launch) -> bool:
    """The call's callee surely is this built launch (another function of the same name is not)."""
    return is_built_launch(ev.value(cs.node.func, cs.scope, ev.order_of(cs)), launch)


_TRACING = ("trace", "lower")


def _traced(ev: Evaluator, launch: Launch) -> list[CallSite]:
    """``jax.jit(k).trace(x, y)`` and ``.lower(x, y)`` of a launch ``k`` bound to a name: the
    arguments are its operands (shapes given as ``jax.ShapeDtypeStruct`` most often)."""
    out: list[CallSite] = []
    for method in _TRACING:
        for cs in ev.calls_named(method):
            func = cs.node.func
            if not (isinstance(func, ast.Attribute) and func.attr == method and isinstance(func.value, ast.Call)):
                continue
            jitted = func.value
            if len(jitted.args) != 1 or not isinstance(jitted.args[0], ast.Name) \
                    or jitted.args[0].id not in launch.bound_names:
                continue
            v = ev.value(jitted, cs.scope, ev.order_of(cs))
            if isinstance(v, CallVal) and ev.called_api(v) == "jax.jit" and is_built_launch(through_wrappers(ev, v),
                                                                                        launch):
                out.append(cs)
    return out


def calls_that_may_see(ev: Evaluator, name: str, binder: Scope) -> list[CallSite]:
    """The calls of ``name`` that may read the binding ``binder`` makes: a function's local is
    seen only inside that function and the functions nested in it, so only their calls are
    read (a launch bound to ``kernel`` in one test neither reads, nor comes to depend on, every
    other test's ``kernel(...)``); a module-level name's calls anywhere."""
    if binder.kind not in ("function", "lambda"):
        return ev.calls_named(name)
    out: list[CallSite] = []
    todo = [binder]
    while todo:
        scope = todo.pop()
        out += [cs for cs in scope.calls if isinstance(cs.node.func, ast.Name) and cs.node.func.id == name]
        todo += scope.children
    return out


def enclosing_function(scope: Scope | None) -> Scope | None:
    """The function (or lambda) a scope is in, itself included; None at module level."""
    while scope is not None and scope.kind not in ("function", "lambda"):
        if scope.kind == "module":
            return None
        scope = scope.parent
    return scope


__all__ = ["applied_at", "applies", "calls_that_may_see", "enclosing_function", "is_built_launch",
           "kernel_operand_params", "scratch_count", "through_wrappers"]
