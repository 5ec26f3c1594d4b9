"""Which launches run inside a ``jax.jit`` that the code makes span more than one device, with
no ``shard_map`` between the jit and the launch.

JAX lowers such a jit with a ``ShardingContext`` of ``num_devices`` > 1, and the Mosaic TPU
custom call refuses it (``_tpu_custom_call_lowering`` in ``jax/_src/tpu_custom_call.py``:
"Mosaic kernels cannot be automatically partitioned"). The jit's device count is the length of
its device assignment: the devices of any concrete sharding among its inputs, outputs and
sharding constraints, else those of a ``jax.set_mesh`` context's mesh. So the mesh's *size*
decides, not the partition spec: a replicated ``P()`` on four devices raises too
(``tests/data/sharding``, lowered under jax 0.10.2 and 0.12.0.1).

Only what the code spells out is used: a mesh from ``jax.make_mesh((8,), ...)`` or
``Mesh(<devices>.reshape(2, 4), ...)`` with constant sizes; a mesh of unknown size says nothing.
An operand whose *type* is sharded over an Explicit mesh axis fails earlier, with another
error (pallas_call wants every mesh axis Manual), so ``device_put`` and ``jax.set_mesh`` count
only where that cannot be the case (an Auto mesh, a replicated spec, freshly made arguments).

This module knows only the module it is given: a jit in another module is not followed.
"""
from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .applications import is_built_launch, through_wrappers
from .evaluate import CallVal, Decorated, Evaluator, FuncVal, PartialVal, TupleVal, Value
from .module import ModuleIndex, Span
from .scopes import CallSite, Scope, WithSite

if TYPE_CHECKING:  # pragma: no cover
    from .launches import Launch

JIT = "jax.jit"
SHARD_MAP_APIS = frozenset({"jax.shard_map", "jax.experimental.shard_map.shard_map"})
MAKE_MESH = frozenset({"jax.make_mesh"})
MESH = frozenset({"jax.sharding.Mesh"})
NAMED_SHARDING = "jax.sharding.NamedSharding"
PARTITION_SPEC = "jax.sharding.PartitionSpec"
SET_MESH = frozenset({"jax.set_mesh", "jax.sharding.set_mesh"})
DEVICE_PUT = "jax.device_put"
AXIS_TYPE = "jax.sharding.AxisType."
# Arguments made by these are fresh, unsharded arrays (under a mesh context: replicated).
_FRESH_ROOTS = ("jax.numpy.", "jax.random.")
_MAX_SCOPES = 200  # functions walked from one jit
# ``jitted.trace(*args)`` / ``jitted.lower(*args)``: lowered as a call with those arguments.
_LOWERING_METHODS = frozenset({"trace", "lower"})
# The words a module must hold for any of this to apply (checked before anything is evaluated).
WORDS = frozenset({"NamedSharding", "set_mesh"})


@dataclass(frozen=True)
class MeshFacts:
    """A mesh the code builds: how many devices, and whether every axis is Auto (None: unknown)."""

    devices: int
    auto: bool | None
    span: Span
    code: str


@dataclass(frozen=True)
class MultiDeviceJit:
    """Why a jit that reaches a launch spans more than one device."""

    how: str  # "in_shardings", "out_shardings", "set_mesh", "device_put"
    span: Span  # the construct that says so
    code: str  # its text
    mesh: MeshFacts

    @property
    def words(self) -> str:
        return f"`{self.code}` puts the jit on a mesh of {self.mesh.devices} devices (`{self.mesh.code}`)"


class _ReachWithoutShardMap:
    """The launches a jitted function runs, through the functions it calls (in other modules
    too), where the walk never enters what ``shard_map`` runs: that is lowered per device,
    manual over the mesh's axes."""

    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev

    def launches_under(self, fv: Value, launches: list["Launch"]) -> list["Launch"]:
        ev = self.ev
        direct = self._launch_of(fv, launches)
        if direct is not None:
            return [direct]
        start = self._function(fv)
        if start is None:
            return []
        found: list["Launch"] = []
        seen = {id(start)}
        todo = [start]
        while todo and len(seen) < _MAX_SCOPES:
            scope = todo.pop()
            for sub in scope.walk():
                seen.add(id(sub))
                followed, handed_to_shard_map = [], set()
                for cs in sub.calls:
                    order = ev.other(cs.scope).order_of(cs)  # (a scope of another module: its own order)
                    callee = ev.value(cs.node.func, cs.scope, order)
                    if _is_shard_map(ev, callee):  # (shard_map(f, ...)(x), a shard_map-decorated function)
                        for a in cs.all_args:
                            launch = self._launch_of(ev.value(a, cs.scope, order), launches)
                            if launch is not None:
                                handed_to_shard_map.add(id(launch))
                    else:
                        followed.append((cs, order, callee))
                found.extend(launch for launch in launches
                             if launch.scope is sub and launch not in found and id(launch) not in handed_to_shard_map)
                for cs, order, callee in followed:
                    for v in [callee] + [ev.value(a, cs.scope, order) for a in cs.all_args]:
                        launch = self._launch_of(v, launches)
                        if launch is not None:
                            if launch not in found:
                                found.append(launch)
                            continue
                        fn = self._function(v)
                        if fn is not None and id(fn) not in seen:
                            seen.add(id(fn))
                            todo.append(fn)
        return found

    def _launch_of(self, v: Value, launches: list["Launch"]) -> "Launch | None":
        v = through_wrappers(self.ev, v)
        return next((launch for launch in launches if is_built_launch(v, launch)), None)

    def _function(self, v: Value) -> Scope | None:
        """The function a callable value runs (through partials, decorators and ``jax.jit(f)``),
        or None (also for what shard_map runs)."""
        ev = self.ev
        for _ in range(10):
            if _is_shard_map(ev, v):
                return None
            if isinstance(v, FuncVal):
                return v.scope
            if isinstance(v, PartialVal):
                v = v.func
            elif isinstance(v, Decorated):
                v = v.inner
            elif isinstance(v, CallVal) and ev.called_api(v) == JIT and v.site.positional:
                v = ev.value(v.site.positional[0], v.site.scope, v.order)
            else:
                return None
        return None


def _api_name(ev: Evaluator, v: Value) -> str | None:
    """``jax.shard_map`` for ``jax.shard_map``, ``jax.shard_map(f, ...)`` and ``partial(jax.shard_map, ...)``."""
    if isinstance(v, PartialVal):
        return ev.ext_name(v.func)
    return ev.called_api(v) if isinstance(v, CallVal) else ev.ext_name(v)


def _is_shard_map(ev: Evaluator, v: Value) -> bool:
    """``jax.shard_map`` itself, a call or partial of it, or a function decorated with it."""
    for _ in range(4):
        if not isinstance(v, Decorated):
            break
        if _api_name(ev, v.decorator) in SHARD_MAP_APIS:
            return True
        v = v.inner
    return _api_name(ev, v) in SHARD_MAP_APIS


class ShardingFinder:
    """The launches of a module that a multi-device jit reaches (see the module docstring)."""

    def __init__(self, index: ModuleIndex, ev: Evaluator) -> None:
        self.index = index
        self.ev = ev
        self._reach = _ReachWithoutShardMap(ev)

    def applies(self) -> bool:
        return bool(self.index.calls_to(WORDS))

    def reached(self, launches: list["Launch"]) -> dict[int, list[MultiDeviceJit]]:
        """id(launch) -> why the jits reaching it span several devices (first found first)."""
        out: dict[int, list[MultiDeviceJit]] = {}
        if not launches or not self.applies():
            return out
        for why, fn in self._sharded_jits() + self._mesh_context_calls() + self._device_put_calls():
            for launch in self._reach.launches_under(fn, launches):
                got = out.setdefault(id(launch), [])
                if why not in got:
                    got.append(why)
        return out

    # -- the jits ----------------------------------------------------------------------------
    def _jit_options(self, v: Value) -> tuple[CallSite | None, Value] | None:
        """For a jitted callable: the call holding its options (``jax.jit(f, ...)`` or the
        ``functools.partial(jax.jit, ...)`` decorator; None for a bare ``@jax.jit``) and the
        callable it runs; None when ``v`` is not a jitted callable."""
        ev = self.ev
        for _ in range(4):
            if isinstance(v, CallVal) and ev.called_api(v) == JIT and v.site.positional:
                return v.site, v
            if isinstance(v, Decorated):
                d = v.decorator
                if ev.ext_name(d) == JIT:
                    return None, v.inner
                if isinstance(d, PartialVal) and ev.ext_name(d.func) == JIT:
                    return d.site, v.inner
                if isinstance(d, CallVal) and ev.called_api(d) == JIT:  # @jax.jit(in_shardings=...)
                    return d.site, v.inner
                v = v.inner
                continue
            return None
        return None

    def _jitted_call(self, call: CallSite) -> tuple[CallSite | None, Value] | None:
        """What :meth:`_jit_options` says of the function a call runs: ``step(x)``, and also
        ``step.trace(x)`` / ``step.lower(x)``, which lower with the same arguments' shardings."""
        func = call.node.func
        if isinstance(func, ast.Attribute) and func.attr in _LOWERING_METHODS:
            func = func.value
        return self._jit_options(self.ev.value(func, call.scope, self.ev.order_of(call)))

    def _sharded_jits(self) -> list[tuple[MultiDeviceJit, Value]]:
        ev, out = self.ev, []
        seen: set[int] = set()
        candidates: list[Value] = []
        for cs in self.index.calls_to({"jit"}):
            candidates.append(ev.value(cs.node, cs.scope, ev.order_of(cs)))
        for _, bp in self.index.parses:
            if bp.error is not None:
                continue
            for d in bp.decorators():
                if d.index == 0:  # (the outermost decorator: the whole stack)
                    candidates.append(ev.def_value(d.target))
        for v in candidates:
            got = self._jit_options(v)
            if got is None:
                continue
            site, fn = got
            if site is None or id(site) in seen:
                continue
            seen.add(id(site))
            for keyword in ("in_shardings", "out_shardings"):
                node = ev.kwarg(site, keyword)
                if node is None:
                    continue
                mesh = self._sharding_mesh(node, site.scope, ev.order_of(site))
                if mesh is not None and mesh.devices > 1:
                    out.append((MultiDeviceJit(keyword, self.index.span(node, site.scope),
                                               f"{keyword}={self.index.code_of(node, site.scope)}", mesh), fn))
                    break
        return out

    def _mesh_context_calls(self) -> list[tuple[MultiDeviceJit, Value]]:
        """Calls of jitted functions inside ``with jax.set_mesh(mesh):`` of several devices."""
        ev, out = self.ev, []
        for cs in self.index.calls_to({"set_mesh"}):
            if ev.ext_name(ev.value(cs.node.func, cs.scope, ev.order_of(cs))) not in SET_MESH:
                continue
            arg = ev.posarg(cs, 0) if cs.positional else ev.kwarg(cs, "mesh")
            mesh = self._mesh(arg, cs.scope, ev.order_of(cs)) if arg is not None else None
            if mesh is None or mesh.devices < 2:
                continue
            with_site = self._with_of(cs)
            if with_site is None:
                continue
            why = MultiDeviceJit("set_mesh", self.index.span(cs.node, cs.scope),
                                 self.index.code_of(cs.node, cs.scope), mesh)
            for call in self._calls_within(with_site):
                got = self._jitted_call(call)
                if got is None:
                    continue
                # On an Explicit mesh an argument with a sharded type fails earlier (another error).
                if mesh.auto is not True and not self._all_fresh(call):
                    continue
                out.append((why, got[1]))
        return out

    def _device_put_calls(self) -> list[tuple[MultiDeviceJit, Value]]:
        """Calls of jitted functions given a ``jax.device_put(x, NamedSharding(mesh, spec))``
        result, where that result cannot have a sharded type (an Auto mesh, or ``P()``)."""
        ev, out = self.ev, []
        for cs in self.index.calls_to({"device_put"}):
            if ev.ext_name(ev.value(cs.node.func, cs.scope, ev.order_of(cs))) != DEVICE_PUT:
                continue
            if cs.use != "assign" or not cs.targets or len(cs.node.args) < 2:
                continue
            target = cs.node.args[1]
            order = ev.order_of(cs)
            v = ev.value(target, cs.scope, order)
            if not (isinstance(v, CallVal) and ev.called_api(v) == NAMED_SHARDING):
                continue
            mesh = self._named_sharding_mesh(v)
            if mesh is None or mesh.devices < 2:
                continue
            if mesh.auto is not True and not self._replicated_spec(v):
                continue
            why = MultiDeviceJit("device_put", self.index.span(cs.node, cs.scope),
                                 self.index.code_of(cs.node, cs.scope), mesh)
            names = set(cs.targets)
            for call in cs.scope.calls:
                if call.seq <= cs.seq or not names & set(call.arg_names):
                    continue
                got = self._jitted_call(call)
                if got is not None:
                    out.append((why, got[1]))
        return out

    # -- facts -------------------------------------------------------------------------------
    def _sharding_mesh(self, node: ast.expr, scope: Scope, order, depth: int = 0) -> MeshFacts | None:
        """The largest mesh of the ``NamedSharding`` values ``node`` is or holds (a tuple or
        list of them too), or None."""
        ev = self.ev
        v = ev.value(node, scope, order)
        if isinstance(v, CallVal) and ev.called_api(v) == NAMED_SHARDING:
            return self._named_sharding_mesh(v)
        if isinstance(v, TupleVal) and depth < 3:
            found = [self._sharding_mesh(n, s, o, depth + 1) for n, s, o in v.items]
            known = [m for m in found if m is not None]
            return max(known, key=lambda m: m.devices) if known else None
        return None

    def _named_sharding_mesh(self, v: CallVal) -> MeshFacts | None:
        site = v.site
        node = self.ev.posarg(site, 0) if site.positional else self.ev.kwarg(site, "mesh")
        return self._mesh(node, site.scope, v.order) if node is not None else None

    def _replicated_spec(self, v: CallVal) -> bool:
        """``NamedSharding(mesh, P())`` (or ``P(None, ...)``): nothing partitioned."""
        ev, site = self.ev, v.site
        node = ev.posarg(site, 1) if len(site.positional) > 1 else ev.kwarg(site, "spec")
        if node is None:
            return False
        spec = ev.value(node, site.scope, v.order)
        if not (isinstance(spec, CallVal) and ev.called_api(spec) == PARTITION_SPEC) or spec.site.has_star:
            return False
        return not spec.site.node.keywords and all(
            ev.const(a, spec.site.scope, spec.order) is None for a in spec.site.node.args)

    def _mesh(self, node: ast.expr, scope: Scope, order) -> MeshFacts | None:
        """A mesh of constant size: ``jax.make_mesh((2, 4), ...)`` (Explicit axes unless
        ``axis_types`` says otherwise) or ``Mesh(<devices>.reshape(2, 4), ...)`` (Auto axes
        unless it says otherwise)."""
        ev = self.ev
        v = ev.value(node, scope, order)
        if not isinstance(v, CallVal):
            return None
        api_name = ev.called_api(v)
        site = v.site
        if api_name in MAKE_MESH:
            shape = ev.posarg(site, 0) if site.positional else (
                ev.kwarg(site, "axis_shapes") or ev.kwarg(site, "axis_sizes"))
            sizes = self._int_tuple(shape, site.scope, v.order)
            default_auto = False
        elif api_name in MESH:
            devices = ev.posarg(site, 0) if site.positional else ev.kwarg(site, "devices")
            sizes = self._reshaped(devices, site.scope, v.order)
            default_auto = True
        else:
            return None
        if sizes is None:
            return None
        types = ev.posarg(site, 2) if len(site.positional) > 2 else ev.kwarg(site, "axis_types")
        auto = default_auto if types is None else self._all_auto(types, site.scope, v.order)
        return MeshFacts(math.prod(sizes), auto, self.index.span(site.node, site.scope),
                         self.index.code_of(site.node, site.scope))

    def _int_tuple(self, node: ast.expr | None, scope: Scope, order) -> tuple[int, ...] | None:
        if node is None:
            return None
        v = self.ev.value(node, scope, order)
        if not isinstance(v, TupleVal) or not v.items:
            return None
        sizes = [self.ev.const(n, s, o) for n, s, o in v.items]
        if not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in sizes):
            return None
        return tuple(sizes)  # type: ignore[arg-type]

    def _reshaped(self, node: ast.expr | None, scope: Scope, order) -> tuple[int, ...] | None:
        """The sizes of ``<devices>.reshape(2, 4)`` / ``.reshape((2, 4))``."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "reshape" and node.args and not node.keywords):
            return None
        if len(node.args) == 1:
            one = self.ev.const(node.args[0], scope, order)
            if isinstance(one, int) and not isinstance(one, bool) and one > 0:
                return (one,)
            return self._int_tuple(node.args[0], scope, order)
        sizes = [self.ev.const(a, scope, order) for a in node.args]
        if not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in sizes):
            return None  # (-1 and unknown sizes: the device count decides)
        return tuple(sizes)  # type: ignore[arg-type]

    def _all_auto(self, node: ast.expr, scope: Scope, order) -> bool | None:
        v = self.ev.value(node, scope, order)
        if not isinstance(v, TupleVal) or not v.items:
            return None
        kinds = [self.ev.ext_name(self.ev.value(n, s, o)) for n, s, o in v.items]
        if any(k is None or not k.startswith(AXIS_TYPE) for k in kinds):
            return None
        return all(k == AXIS_TYPE + "Auto" for k in kinds)

    def _all_fresh(self, call: CallSite) -> bool:
        """Every argument is made by a jax.numpy / jax.random call (through names)."""
        ev = self.ev
        args = call.all_args
        if not args or call.has_star:
            return False
        for a in args:
            v = ev.value(a, call.scope, ev.order_of(call))
            name = ev.called_api(v) if isinstance(v, CallVal) else None
            if name is None or not name.startswith(_FRESH_ROOTS):
                return False
        return True

    # -- with-blocks -------------------------------------------------------------------------
    def _with_of(self, cs: CallSite) -> WithSite | None:
        """The with-block whose item ``cs`` is (``with jax.set_mesh(mesh):``)."""
        for w in cs.scope.withs:
            if any(item.context_expr is cs.node for item in w.node.items):
                return w
        return None

    def _calls_within(self, w: WithSite) -> list[CallSite]:
        return [c for c in w.scope.calls if w in c.withs]


__all__ = ["MeshFacts", "MultiDeviceJit", "ShardingFinder"]
