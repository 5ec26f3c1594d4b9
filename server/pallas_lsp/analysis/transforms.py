"""What is done *to* a launch: differentiated (``jax.grad``, ``jax.jvp``...) or batched
(``jax.vmap``).

Reverse-mode differentiation (``jax.grad``, ``jax.vjp``...) also partially evaluates the
launch's JVP, which pallas_call has no rule for, so it is a kind of its own ("reverse").

JAX transforms a launch by calling the launch primitive's own rule: pallas_call's JVP rule
and batching rule, or ``mpmd_map``'s (``pl.kernel`` / ``plgpu.kernel``), which has no JVP
rule at all. Those rules raise for launches they cannot transform, so a rule that knows the
launch is transformed can tell the author before the run. A transformation reaches a launch
when the function it is given (a def, a lambda, a partial, a jitted function, or the built
launch itself) runs the launch, directly or through local helpers. The chain ends at a
``jax.custom_vjp`` / ``jax.custom_jvp`` function (its own rule replaces the launch's), and a
launch applied only to ``jax.lax.stop_gradient(...)`` values carries no tangent.

This module knows only the module it is given: a transformation in one module of a launch
built in another is not followed.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Iterable

from .applications import applied_at, is_built_launch, through_wrappers
from .evaluate import CallVal, Decorated, Evaluator, Ext, FuncVal, PartialVal, TupleVal, Value
from .module import ModuleIndex, Span
from .scopes import CallSite, DecoratorSite, Scope

if TYPE_CHECKING:  # pragma: no cover
    from .launches import Launch

DIFFERENTIATE = "differentiate"
REVERSE = "reverse"  # reverse-mode differentiation, a subset of DIFFERENTIATE
BATCH = "batch"
SHARD = "shard"  # mapped over a device mesh: what a remote DMA or signal needs in TPU interpret mode
KINDS = (DIFFERENTIATE, REVERSE, BATCH, SHARD)

# The transformation APIs and what each does to the launches its function runs.
TRANSFORM_APIS = {
    "jax.grad": DIFFERENTIATE, "jax.value_and_grad": DIFFERENTIATE, "jax.jvp": DIFFERENTIATE,
    "jax.vjp": DIFFERENTIATE, "jax.linearize": DIFFERENTIATE, "jax.jacfwd": DIFFERENTIATE,
    "jax.jacrev": DIFFERENTIATE, "jax.hessian": DIFFERENTIATE,
    "jax.vmap": BATCH,
    "jax.shard_map": SHARD, "jax.experimental.shard_map.shard_map": SHARD,
}
# Reverse mode: linearize, then transpose (``jax.hessian`` is jacfwd of jacrev).
REVERSE_APIS = frozenset({"jax.grad", "jax.value_and_grad", "jax.vjp", "jax.linearize", "jax.jacrev", "jax.hessian"})
_LAST_NAMES = frozenset(n.rsplit(".", 1)[1] for n in TRANSFORM_APIS)
WORDS = _LAST_NAMES  # (a module whose text has none of these applies no transformation)
_WORDS = _LAST_NAMES | {"partial"}  # the names a transformation is called or decorated by
# ``f.defvjp(fwd, bwd)`` of a custom_vjp / custom_jvp: registers its rule, runs nothing under
# the transformation (maxtext's megablox gmm: jax.custom_vjp(...) then .defvjp(_gmm_fwd, ...)).
_RULE_REGISTRATIONS = frozenset({"defvjp", "defjvp", "defjvps"})
# Functions with their own differentiation rule: what they run is not differentiated.
CUSTOM_RULES = {"jax.custom_vjp", "jax.custom_jvp"}
STOP_GRADIENT = {"jax.lax.stop_gradient"}
_MAX_SCOPES = 200
# How many modules away a transformation is looked for: the launch's module, a model that
# calls its function, the training script that differentiates the model.
MAX_HOPS = 3


@dataclass(frozen=True)
class Transform:
    """One transformation of a launch: the ``jax.grad(...)`` call or ``@jax.vmap`` decorator."""

    kind: str  # DIFFERENTIATE, BATCH or SHARD
    api: str  # the public name: "jax.grad"
    site: CallSite | DecoratorSite
    span: Span
    # The calls in other modules it reaches the launch through, outermost first: (span, path,
    # what it says), shown with the finding (``loss`` in model.py calling ``layer``...).
    through: tuple = field(default=(), compare=False, hash=False)

    @property
    def verb(self) -> str:
        return {DIFFERENTIATE: "differentiated", BATCH: "batched"}.get(self.kind, "mapped over a device mesh")

    @property
    def kinds(self) -> frozenset[str]:
        """The kinds this transformation is: ``jax.grad`` differentiates, in reverse mode."""
        return frozenset({self.kind, REVERSE}) if self.api in REVERSE_APIS else frozenset({self.kind})

    def matches(self, wanted: frozenset[str]) -> bool:
        """Whether a rule about these kinds or API names (``"reverse"``, ``"jax.jacfwd"``) is about it."""
        return self.api in wanted or not self.kinds.isdisjoint(wanted)


def find_transforms(index: ModuleIndex, ev: Evaluator) -> list[tuple[Transform, Value]]:
    """Every transformation call and decorator of the module, with the function it transforms."""
    out: list[tuple[Transform, Value]] = []
    for cs in index.calls_to(_WORDS):
        if not _may_be_transform(cs.node.func):
            continue
        order = ev.order_of(cs)
        name = _transform_api(ev, ev.value(cs.node.func, cs.scope, order))
        if name is None:
            continue
        fn = ev.posarg(cs, 0) if cs.positional else ev.kwarg(cs, "fun")
        if fn is None:
            continue
        out.append((Transform(TRANSFORM_APIS[name], name, cs, index.span(cs.node, cs.scope)),
                    ev.value(fn, cs.scope, order)))
    for _, bp in index.parses:
        if bp.error is not None:
            continue
        for d in bp.decorators():
            if not _may_be_transform(d.node):
                continue
            v = ev.value(d.node, d.scope, ev.order_of(d))
            name = _transform_api(ev, v)
            if name is None:
                continue
            out.append((Transform(TRANSFORM_APIS[name], name, d, index.span(d.node, d.scope)), FuncVal(d.target)))
    return out


def _last_name(node: ast.expr) -> str | None:
    """``vmap`` for ``@jax.vmap`` and ``@functools.partial(jax.vmap, ...)``'s ``partial``."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def _may_be_transform(node: ast.expr) -> bool:
    """Whether the text can name a transformation (``jax.vmap``, ``partial(jax.vmap, ...)``),
    before anything is evaluated: a module's many other partials and decorators cost nothing."""
    name = _last_name(node)
    if name in _LAST_NAMES:
        return True
    return name == "partial" and isinstance(node, ast.Call) and bool(node.args) \
        and _last_name(node.args[0]) in _LAST_NAMES


def _transform_api(ev: Evaluator, v: Value) -> str | None:
    """``jax.grad`` for ``jax.grad`` itself or ``functools.partial(jax.grad, ...)``."""
    if isinstance(v, PartialVal):
        v = v.func
    name = ev.ext_name(v)
    return name if name in TRANSFORM_APIS else None


class TransformFinder:
    """Which launches of a module each transformation reaches."""

    def __init__(self, index: ModuleIndex, ev: Evaluator, *, with_importers: bool = True) -> None:
        self.index = index
        self.ev = ev
        self.transforms = find_transforms(index, ev)
        self._with_importers = with_importers

    def _importers(self, launches: list["Launch"]) -> list["TransformFinder"]:
        """The finders of the workspace modules that reach one of ``launches`` through a
        transformation: ``jax.vmap(double)`` in a script, where ``double`` builds the launch
        here, or ``jax.grad(loss)`` where ``loss``, in a module in between, calls ``double``
        (up to :data:`MAX_HOPS` modules away). Each step is taken on cheap facts first: an
        importer is indexed only if its text names a function of the step before that leads
        to a launch, and searched for transformations only if it also names one; so a module
        that says ``grad`` but none of those functions is never indexed."""
        program = self.ev.program
        if not self._with_importers or program is None or not self.index.path:
            return []
        names: set[str] = set()
        for launch in launches:
            names.update(launch.bound_names)
            names.update(_enclosing_names(launch.scope))
        if not names:
            return []
        out = []
        seen = {self.index.path}
        frontier = [(self.index.path, names)]
        for hop in range(MAX_HOPS):
            last = hop == MAX_HOPS - 1
            after: list[tuple[str, set[str]]] = []
            for path, wanted in frontier:
                for p in program.importers_of(path, depth=1):  # type: ignore[attr-defined]
                    if p in seen or not program.mentions(p, wanted):  # type: ignore[attr-defined]
                        continue
                    seen.add(p)
                    transforms_here = program.mentions(p, _LAST_NAMES)  # type: ignore[attr-defined]
                    if last and not transforms_here:
                        continue
                    ev = program.evaluator(p)  # type: ignore[attr-defined]
                    if ev is None or ev is self.ev:
                        continue
                    if transforms_here:
                        found = TransformFinder(ev.index, ev, with_importers=False)
                        if found.transforms:
                            out.append(found)
                    if not last:
                        leading = _callers_of(ev.index, wanted)
                        if leading:
                            after.append((p, leading))
            frontier = after
        return out

    def transformed(self, launches: Iterable["Launch"]) -> dict[int, list[Transform]]:
        """id(launch) -> the transformations that reach it, in the order of the text."""
        launches = list(launches)
        result: dict[int, list[Transform]] = {}
        if not launches:
            return result
        here, path_of = self.index.path, self.index.path_of
        for finder in [self] + self._importers(launches):
            for t, fv in finder.transforms:
                paths: dict[int, list[CallSite]] = {}
                for launch in finder._launches_under(fv, launches, t, paths):
                    got = result.setdefault(id(launch), [])
                    if t not in got:
                        got.append(finder._with_steps(t, paths.get(id(launch), ()), launch))
        for got in result.values():  # (this module's first, each module's in the order of its text)
            got.sort(key=lambda t: (path_of(t.site.scope) != here, path_of(t.site.scope) or "", t.span.line,
                                    t.span.col))
        return result

    def _with_steps(self, t: Transform, steps, launch: "Launch") -> Transform:
        """The transformation with the calls of other modules it goes through on the way."""
        path_of = self.index.path_of
        home = path_of(t.site.scope)
        where = path_of(launch.site.scope)
        through = tuple((self.index.span(cs.node, cs.scope), path_of(cs.scope),
                         f"on the way to the launch: `{cs.scope.name}` calls "
                         f"`{self.index.code_of(cs.node.func, cs.scope)}`")
                        for cs in steps if path_of(cs.scope) not in (home, where))
        return replace(t, through=through) if through else t

    # -- what a transformed function runs ---------------------------------------------------
    def _launch_of(self, v: Value, launches: list["Launch"]) -> "Launch | None":
        return next((launch for launch in launches if is_built_launch(v, launch)), None)

    def _function(self, v: Value) -> Scope | None:
        """The local function a callable value runs, or None (also for a function with its
        own differentiation rule, which ends the chain)."""
        ev = self.ev
        for _ in range(10):
            if isinstance(v, FuncVal):
                return v.scope
            if isinstance(v, PartialVal):
                v = v.func
            elif isinstance(v, Decorated):
                if _names(ev, v.decorator) & CUSTOM_RULES:
                    return None
                v = v.inner
            elif isinstance(v, CallVal) and v.site.positional and ev.called_api(v) is not None:
                if ev.called_api(v) in CUSTOM_RULES:
                    return None
                # jax.jit(f), jax.checkpoint(f)...: runs f
                v = ev.value(v.site.positional[0], v.site.scope, v.order)
            else:
                return None
        return None

    def _launches_under(self, fv: Value, launches: list["Launch"], t: Transform | None = None,
                        paths: dict | None = None) -> list["Launch"]:
        """The launches a transformed callable runs; ``paths`` gets, for each, the calls it is
        reached through (id(launch) -> [call site, ...], outermost first)."""
        ev = self.ev
        direct = self._launch_of(through_wrappers(ev, fv), launches)
        if direct is not None:
            return [direct]
        fn = self._function(fv)
        if fn is None:
            return []
        # In the transformed function itself, a call given nothing computed from the
        # differentiated arguments carries no tangent (None: every value may).
        tangent = _tangent_names(ev, t, fn) if t is not None else None

        def untouched(cs: CallSite) -> bool:
            if tangent is None or cs.scope is not fn or _mentions(cs.node, tangent):
                return False
            # (A function defined in ``fn`` may close over a differentiated value.)
            callee = self._function(ev.value(cs.node.func, cs.scope, ev.other(cs.scope).order_of(cs)))
            return not (callee is not None and _within(callee.parent, fn))

        found: list["Launch"] = []
        seen = {id(fn)}
        todo = [fn]
        came_from: dict[int, tuple[Scope, CallSite]] = {}  # a function visited -> who called it, where

        def reached(launch: "Launch", scope: Scope, last: CallSite | None = None) -> None:
            found.append(launch)
            if paths is None:
                return
            steps = [last] if last is not None else []
            s = scope
            while id(s) in came_from and len(steps) < _MAX_SCOPES:
                s, cs = came_from[id(s)]
                steps.append(cs)
            paths[id(launch)] = steps[::-1]

        ruled: set[int] = set()  # functions given a custom rule here: not differentiated, nor what they run

        def under_rule(s: Scope | None) -> bool:
            while s is not None:
                if id(s) in ruled:
                    return True
                s = s.parent
            return False

        while todo and len(seen) < _MAX_SCOPES:
            scope = todo.pop()
            for sub in scope.walk():
                if under_rule(sub):
                    continue
                seen.add(id(sub))
                for launch in launches:
                    if launch.scope is sub and launch not in found and not self._no_tangent(launch, untouched):
                        reached(launch, scope)
                for cs in sub.calls:
                    if untouched(cs):
                        continue
                    order = ev.other(cs.scope).order_of(cs)  # (a scope of another module: its own order)
                    callee = ev.value(cs.node.func, cs.scope, order)
                    registers = isinstance(cs.node.func, ast.Attribute) and cs.node.func.attr in _RULE_REGISTRATIONS
                    if registers or _names(ev, callee) & CUSTOM_RULES:  # jax.custom_vjp(f), .defvjp(fwd, bwd)
                        for a in cs.all_args:
                            f = self._function(ev.value(a, cs.scope, order))
                            if f is not None:
                                ruled.add(id(f))
                        continue
                    if ev.called_api(callee) in CUSTOM_RULES or _names(ev, callee) & STOP_GRADIENT:
                        continue
                    values = [callee] + [ev.value(a, cs.scope, order) for a in cs.all_args]
                    # A call given only stop_gradient values sends no tangent into its callee
                    # (what the callee closes over could: rare, and missed on purpose).
                    stopped = _all_stopped(ev, cs)
                    for i, v in enumerate(values):
                        launch = self._launch_of(through_wrappers(ev, v), launches)
                        if launch is not None:
                            if launch not in found and not (i == 0 and stopped):
                                reached(launch, scope, cs)
                            continue
                        if i == 0 and stopped:
                            continue
                        t = self._function(v)
                        if t is not None and id(t) not in seen and not under_rule(t):
                            seen.add(id(t))
                            came_from[id(t)] = (scope, cs)
                            todo.append(t)
        return found

    def _no_tangent(self, launch: "Launch", untouched=lambda cs: False) -> bool:
        """The launch is applied where it is built (``pl.pallas_call(...)(x)``), or through
        the names it is bound to (``k = plgpu.kernel(...)``, a decorated def), to
        ``stop_gradient`` values only, or to nothing the transformation differentiates."""
        for cs in launch.scope.calls:
            if cs.node.func is launch.site.node:
                return _all_stopped(self.ev, cs) or untouched(cs)
        applied = [cs for cs in applied_at(self.ev, launch, chained=False) if _within(cs.scope, launch.scope)]
        if applied:
            return all(_all_stopped(self.ev, cs) or untouched(cs) for cs in applied)
        return False


# Differentiation APIs that take ``argnums`` (default 0); the others differentiate every argument.
_ARGNUMS_APIS = {"jax.grad", "jax.value_and_grad", "jax.jacfwd", "jax.jacrev", "jax.hessian"}


def _tangent_names(ev: Evaluator, t: Transform, fn: Scope) -> set[str] | None:
    """The names in ``fn``'s own body that may carry a tangent: the differentiated
    parameters and what is assigned from them (None: cannot tell, or every argument is)."""
    if t.kind != DIFFERENTIATE or t.api not in _ARGNUMS_APIS or not isinstance(t.site, CallSite):
        return None
    params = fn.params
    if any(kind not in ("posonly", "normal") for _, _, kind in params) or fn.node is None:
        return None  # (*args, keyword-only parameters: not followed)
    argnums: object = 0
    node = ev.kwarg(t.site, "argnums")
    if node is not None:
        argnums = ev.const(node, t.site.scope, ev.order_of(t.site))
        if not isinstance(argnums, int):
            v = ev.value(node, t.site.scope, ev.order_of(t.site))
            if not isinstance(v, TupleVal):
                return None
            argnums = tuple(ev.const(n, s, o) for n, s, o in v.items)
    nums = (argnums,) if isinstance(argnums, int) else argnums
    if not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(params) for i in nums):
        return None
    names = {params[i][0] for i in nums}
    body = fn.node.body if not isinstance(fn.node, ast.Lambda) else []
    for _ in range(4):  # (assignments from tangent-carrying names carry one too)
        before = len(names)
        for stmt in ast.walk(ast.Module(body=list(body), type_ignores=[])):
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and stmt.value is not None \
                    and _mentions(stmt.value, names):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for tgt in targets:
                    names |= {n.id for n in ast.walk(tgt) if isinstance(n, ast.Name)}
            elif isinstance(stmt, (ast.For, ast.With)):
                return None  # (loops and context targets: not followed)
        if len(names) == before:
            break
    return names


def _mentions(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _names(ev: Evaluator, v: Value) -> set[str]:
    name = ev.called_api(v) if isinstance(v, CallVal) else ev.ext_name(v)
    if isinstance(v, PartialVal) and isinstance(v.func, Ext):
        name = v.func.name
    return {name} if name else set()


def _all_stopped(ev: Evaluator, cs: CallSite) -> bool:
    """Every argument of the call is a ``jax.lax.stop_gradient(...)`` value (through names)."""
    args = list(cs.node.args) + [k.value for k in cs.node.keywords]
    if not args or any(isinstance(a, ast.Starred) for a in args):
        return False
    order = ev.other(cs.scope).order_of(cs)
    for a in args:
        v = ev.value(a, cs.scope, order)
        if not (isinstance(v, CallVal) and ev.called_api(v) in STOP_GRADIENT):
            return False
    return True


__all__ = ["BATCH", "DIFFERENTIATE", "KINDS", "REVERSE", "REVERSE_APIS", "SHARD", "TRANSFORM_APIS", "Transform",
           "TransformFinder", "find_transforms", "is_built_launch", "through_wrappers"]


def _enclosing_names(scope: Scope | None) -> set[str]:
    """The names of the functions and classes a scope is in (what another module calls)."""
    out = set()
    while scope is not None and scope.kind != "module":
        if scope.kind in ("function", "class") and scope.name:
            out.add(scope.name)
        scope = scope.parent
    return out


def _callers_of(index: ModuleIndex, names: set[str]) -> set[str]:
    """The functions (and classes) of a module that call one of ``names`` or hand it on as an
    argument, by the name's last part: the names a module importing this one would use to
    reach them."""
    out: set[str] = set()
    for scope in (s for _, bp in index.parses for s in bp.scopes()):
        if scope.kind == "module":
            continue
        for cs in scope.calls:
            used = [cs.node.func, *cs.node.args, *(k.value for k in cs.node.keywords)]
            if any(_last_name(n) in names for n in used):
                out |= _enclosing_names(scope)
                break
    return out


def _within(scope: Scope | None, outer: Scope) -> bool:
    """``scope`` is ``outer`` or nested in it."""
    while scope is not None:
        if scope is outer:
            return True
        scope = scope.parent
    return False
