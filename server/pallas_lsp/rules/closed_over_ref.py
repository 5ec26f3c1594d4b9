"""The search both closed-over-Ref kinds share (PAL512, PAL513: their rules are in ``kinds/``): a
``pl.pallas_call`` kernel that closes over a Ref made outside it.

A kernel (or a helper it calls) that reads a ``jax.new_ref(...)`` created outside the kernel
makes the enclosing ``jax.jit`` discharge pallas_call's state effects, which runs
``_pallas_call_state_discharge_rule``. In GPU interpret mode the launch carries a
``kernel_arg_transforms`` parameter that rule does not take (a TypeError); elsewhere the rule
accepts only Refs without a memory space or in ``pl.ANY``, and refuses the others.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from ..analysis import api
from ..analysis.contexts import Mode
from ..analysis.evaluate import CallVal, Ext, FuncVal, ParamVal, PartialVal, TupleVal
from ..analysis.launches import Launch, kernel_operand_params, scratch_count
from ..analysis.reach import Reached, reach
from ..analysis.findings import Fix, Related
from ..analysis.fixes import cst_edits, launches_of_kernel  # (cst_edits: loaded on first use)
from ..analysis.rule_api import Hit, Report
from ..analysis.scopes import Scope, own_nodes
from .base import PythonRule

NEW_REF = "jax.new_ref"
# The memory spaces a closed-over Ref is refused in (measured under jax 0.12.0.1), by the name
# JAX gives them in its message; pl.ANY and no memory space are accepted.
REFUSED_SPACES = {
    f"{api.PLTPU}.VMEM": "vmem", f"{api.PLTPU}.SMEM": "smem", f"{api.PLTPU}.HBM": "hbm",
    f"{api.PLTPU}.MemorySpace.VMEM": "vmem", f"{api.PLTPU}.MemorySpace.SMEM": "smem",
    f"{api.PLTPU}.MemorySpace.HBM": "hbm", f"{api.PLGPU}.SMEM": "smem",
}


@dataclass(frozen=True)
class ClosedRef:
    use: ast.Name  # the first read of the Ref in the kernel
    use_scope: Scope
    made: CallVal | None  # the jax.new_ref(...) call; None for a Ref of an enclosing kernel
    space: str | None  # the refused memory space's name ("vmem"), or None (none, ANY, unknown)
    # Where the Ref is made: the jax.new_ref(...) call, or the launch of the enclosing kernel
    # whose Ref it is (the scratch entry, for a scratch Ref).
    origin: tuple[ast.AST, Scope] | None = None
    enclosing: Launch | None = None  # the launch of the enclosing kernel whose Ref it is


def closed_over_refs(hit: Hit) -> list[ClosedRef]:
    """The Refs made outside the kernel that the kernel and its helpers read, once each: those
    of ``jax.new_ref(...)``, and for a launch made in code another kernel runs, that kernel's
    own Refs. A Ref reaches the kernel as a name it closes over, through the parameters of the
    functions that build the launch, or as an argument ``functools.partial`` binds the kernel."""
    ev = hit.ev
    inside = {id(r.scope) for r in hit.view.reached}
    enclosing = _Enclosing(hit)
    out: list[ClosedRef] = []
    seen: set[object] = set()

    def add(v, node: ast.expr, scope: Scope, order, use: ast.Name, use_scope: Scope) -> None:
        v = _through_factory(hit, v)
        if isinstance(v, ParamVal):
            key = (id(v.scope), v.name)
            if key not in seen and (found := enclosing.ref(v, node, scope, order, use, use_scope)):
                seen.add(key)
                out.append(found)
                return
            v = _new_ref_passed(hit, v)
        if not (isinstance(v, CallVal) and ev.called_api(v) == NEW_REF) or id(v.site.node) in seen:
            return
        seen.add(id(v.site.node))
        if _traced(ev, v.site.scope):  # (outside jax.jit a Ref in a kernel fails otherwise)
            out.append(ClosedRef(use, use_scope, v, _refused_space(hit, v), (v.site.node, v.site.scope)))

    for r in hit.view.reached:
        scope = r.scope
        for name in _names_read_in(scope):
            b = ev.lookup(name.id, scope)
            if b is None or b.scope is None or id(b.scope) in inside:
                continue  # (bound in the kernel, or not found)
            add(ev.value(name, scope), name, scope, None, name, scope)
    for param, (node, scope, order) in _partial_bound(hit).items():
        kernel = hit.launch.kernel
        use = next((n for n in _names_read_in(kernel) if n.id == param), None) if kernel is not None else None
        if use is not None:  # (a Ref bound but never read is not traced into the kernel)
            add(ev.value(node, scope, order), node, scope, order, use, kernel)
    return out


def _partial_bound(hit: Hit) -> dict[str, tuple[ast.expr, Scope, object]]:
    """The kernel's parameters that ``functools.partial(kernel, ...)`` fills at the launch, with
    the argument each is given."""
    ev, kernel = hit.ev, hit.launch.kernel
    v = hit.launch.kernel_value
    prefix: list[tuple[str | None, ast.expr, Scope, object]] = []
    while isinstance(v, PartialVal):
        site = v.site
        order = ev.order_of(site)
        prefix = [(None, a, site.scope, order) for a in site.positional[1:]] + \
            [(k, a, site.scope, order) for k, a in site.keywords.items()] + prefix
        v = v.func
    if not prefix or kernel is None or not isinstance(v, FuncVal) or v.scope is not kernel:
        return {}
    params = [p[0] for p in kernel.params]
    out: dict[str, tuple[ast.expr, Scope, object]] = {}
    at = 0
    for keyword, node, scope, order in prefix:
        if isinstance(node, ast.Starred):
            return out  # (where the rest go is not known)
        if keyword is None:
            if at >= len(params):
                return out
            keyword, at = params[at], at + 1
        out[keyword] = (node, scope, order)
    return out


def _new_ref_passed(hit: Hit, p: ParamVal, depth: int = 0):
    """The ``jax.new_ref(...)`` a call of the function that builds the launch passes for its
    parameter ``p`` (through a few such functions), or ``p``."""
    ev = hit.ev
    if depth > 3 or not _within(hit.launch.site.scope, p.scope):
        return p
    for inv in ev.callers_of(p.scope):
        bound = ev.bind_param(inv, p.name)
        if bound is None or bound.node is None or bound.scope is None or bound.default:
            continue
        v = ev.value(bound.node, bound.scope, bound.order)
        if isinstance(v, ParamVal):
            v = _new_ref_passed(hit, v, depth + 1)
        if isinstance(v, CallVal) and ev.called_api(v) == NEW_REF:
            return v
    return p


class _Enclosing:
    """The launches whose kernels run the code that builds this launch, with what their kernels
    reach (worked out once, on the first parameter asked about)."""

    def __init__(self, hit: Hit) -> None:
        self.hit = hit
        self._found: list[tuple[Launch, list[Reached]]] | None = None

    def launches(self) -> list[tuple[Launch, list[Reached]]]:
        if self._found is None:
            self._found = self._work_out()
        return self._found

    def _work_out(self) -> list[tuple[Launch, list[Reached]]]:
        """Only launches interpreted with interpret=True: measured under jax 0.12 with the outer
        launch so, pallas_call's discharge refuses the enclosing kernel's Refs. With TPU or GPU
        interpret params outside, JAX fails otherwise ("Cannot lower a pallas_call with
        constants"): no claim is made there, nor for a kernel launched in an unknown mode."""
        hit, ev = self.hit, self.hit.ev
        launch = hit.launch
        builders = _callers_closure(ev, launch.site.scope)
        out = []
        for outer in hit.view.all_launches:
            if outer is launch or not outer.kernels or not any(id(k) in builders for k in outer.kernels) \
                    or not outer.contexts or any(c.mode != Mode.INTERPRET for c in outer.contexts):
                continue
            reached = reach(ev, list(outer.kernels))
            if any(r.scope is launch.site.scope for r in reached):  # (the launch is built as it runs)
                out.append((outer, reached))
        return out

    def ref(self, p: ParamVal, node: ast.expr, scope: Scope, order, use: ast.Name,
            use_scope: Scope) -> ClosedRef | None:
        """A parameter of a function an enclosing kernel runs (the kernel itself, or a helper
        it passes its Ref to), read as ``node``: the enclosing kernel's Ref it holds there."""
        ev = self.hit.ev
        for outer, reached in self.launches():
            for r in reached:
                if r.scope is not p.scope:
                    continue
                with ev.within(r.frames):
                    held = ev.value(node, scope, order)
                if isinstance(held, ParamVal) and held.scope is outer.kernel:
                    found = _kernel_ref_space(self.hit, outer, held)
                    if found is not None:
                        return ClosedRef(use, use_scope, None, found[0], found[1], outer)
        return None


def _callers_closure(ev, scope: Scope | None, depth: int = 4) -> set[int]:
    """The functions that may run ``scope``'s code: those it is written in, and their callers,
    a few calls up (a cheap bound on which kernels to follow with reach)."""
    out: set[int] = set()
    todo = [(scope, 0)]
    while todo:
        s, d = todo.pop()
        while s is not None and id(s) not in out:
            out.add(id(s))
            if s.kind in ("function", "lambda") and d < depth:
                todo += [(inv.site.scope, d + 1) for inv in ev.callers_of(s)]
            s = s.parent
    return out


def _kernel_ref_space(hit: Hit, outer, p: ParamVal) -> tuple[str, tuple[ast.AST, Scope]] | None:
    """The memory space JAX names for the outer kernel's parameter ``p`` and where it is made:
    its scratch entry's, or "default" for an operand of a launch without BlockSpecs (the
    launch); None where not known."""
    ev = hit.ev
    params = kernel_operand_params(outer)
    if params is None or p.name not in params or outer.kernel is not p.scope:
        return None
    scratch = scratch_count(ev, outer)
    if scratch is None:
        return None
    at = params.index(p.name)
    first_scratch = len(params) - scratch
    if at < first_scratch:
        if outer.api.name != api.PALLAS_CALL:
            return None  # (pl.kernel's operands: closing over one ran clean)
        blocked = any(k in outer.options for k in ("in_specs", "out_specs", "grid_spec"))
        return None if blocked else ("default", (outer.site.node.func, outer.site.scope))
    opt = outer.options.get("scratch_shapes") or outer.options.get("scratch_types")
    entries = ev.value(*opt) if opt is not None else None
    if not isinstance(entries, TupleVal):
        return None
    node, scope, order = entries.items[at - first_scratch]
    entry = ev.value(node, scope, order)
    name = ev.called_api(entry) if isinstance(entry, CallVal) else None
    space = REFUSED_SPACES.get(name or "")
    return (space, (node, scope)) if space is not None else None


def _within(scope: Scope | None, outer: Scope) -> bool:
    while scope is not None:
        if scope is outer:
            return True
        scope = scope.parent
    return False


def _through_factory(hit: Hit, v):
    """A parameter of the kernel factory the launch is given (``make_kernel(table)``): the
    argument of that call."""
    if not isinstance(v, ParamVal):
        return v
    ev = hit.ev
    made = hit.launch.kernel_value
    if not isinstance(made, CallVal):
        return v
    for inv in ev.callers_of(v.scope):
        if inv.site is made.site:
            bound = ev.bind_param(inv, v.name)
            if bound is not None and bound.node is not None and not bound.default:
                return ev.value(bound.node, bound.scope, bound.order)
    return v


def _traced(ev, scope: Scope | None, depth: int = 0) -> bool:
    """Whether code in ``scope`` runs under ``jax.jit``: its function is jitted, or called
    through ``jax.jit(f)``, or called from such code (a few calls up)."""
    while scope is not None and scope.kind not in ("function", "lambda"):
        scope = scope.parent if scope.kind != "module" else None
    if scope is None or depth > 3:
        return False
    if ev.is_jitted(scope)[0]:
        return True
    return any(inv.how == "jit" or _traced(ev, inv.site.scope, depth + 1) for inv in ev.callers_of(scope))


def _names_read_in(scope: Scope) -> list[ast.Name]:
    """:func:`_names_read` of a function scope, once per block parse: every launch of a kernel
    asks it again (thousands of launches of one kernel in a file)."""
    bp, node = scope.block, scope.node
    if bp is None or not hasattr(bp, "fact"):
        return _names_read(node)
    return bp.fact(f"closed_over_ref.names_read:{id(node)}", lambda _bp: _names_read(node))


def _names_read(fn: ast.AST) -> list[ast.Name]:
    """The names a function's own body reads (not those of functions defined in it)."""
    return [n for n in own_nodes(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]


def _refused_space(hit: Hit, made: CallVal) -> str | None:
    ev = hit.ev
    node = ev.kwarg(made.site, "memory_space")
    if node is None:
        return None
    v = ev.value(node, made.site.scope, made.order)
    name = ev.ext_name(v) if isinstance(v, Ext) else None
    return REFUSED_SPACES.get(name or "")


class ClosedOverRefRule(PythonRule):
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    launch_apis = frozenset({api.PALLAS_CALL})

    def report(self, hit: Hit, ref: ClosedRef, error: str, headline: str) -> Report:
        related: tuple[Related, ...] = ()
        if ref.origin is not None:
            note = ("the Ref is made here" if ref.made is not None
                    else "the Ref is the enclosing kernel's, made by this launch")
            related = (Related(hit.span_of(*ref.origin), note),)
        outer = ref.enclosing
        if outer is not None and (ref.origin is None or ref.origin[0] is not outer.site.node.func):
            related += (Related(outer.anchor, f"the enclosing kernel `{outer.kernel_name}` is launched here, "
                                              f"and builds the launch as it runs"),)
        return Report(error, headline, span=hit.span_of(ref.use, ref.use_scope), key=id(ref.use), related=related)


def pass_as_operand_fix(hit: Hit, ref: ClosedRef) -> Fix | None:
    """The Ref's value passed to the launch as one more input, read in the kernel through a new
    parameter of the same name (after the inputs): ``kernel(x_ref, table, o_ref)`` and
    ``pallas_call(...)(x, table[...])``. The clean twin of this kind ran so. Only where that is
    the whole change: the kernel is a plain def, launched once, that only reads the Ref (a
    write would be lost) in its own body; the launch is applied at once to positional inputs,
    with no ``in_specs``/``grid_spec`` to extend; the Ref has a name where it is applied; all in
    one file."""
    launch, index = hit.launch, hit.index
    if ref.made is None:
        return None  # (an enclosing kernel's Ref: its value is not at hand where the launch is applied)
    kernel = launch.kernel if len(launch.kernels) == 1 else None
    fdef = kernel.function_def if kernel is not None else None
    if fdef is None or ref.use_scope is not kernel or "in_specs" in launch.options \
            or "grid_spec" in launch.options or not isinstance(launch.kernel_value, (FuncVal, CallVal)):
        return None
    p = fdef.args
    if p.posonlyargs or p.vararg or p.kwonlyargs or p.kwarg or p.defaults:
        return None
    name = ref.use.id
    if any(a.arg == name for a in p.args):
        return None  # (a parameter functools.partial fills: the kernel has the name already)
    uses = [n for n in own_nodes(fdef) if isinstance(n, ast.Name) and n.id == name]
    reads = {id(n.value) for n in own_nodes(fdef) if isinstance(n, ast.Subscript)
             and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name)}
    if any(id(n) not in reads for n in uses) or launches_of_kernel(hit.view.all_launches, kernel) != 1:
        return None  # (written, or handed on: the value alone would not do)
    applied = next((cs for cs in launch.site.scope.calls if cs.node.func is launch.site.node), None)
    if applied is None or not applied.node.args or applied.node.keywords \
            or any(isinstance(a, ast.Starred) for a in applied.node.args):
        return None
    inputs = len(applied.node.args)
    if len(p.args) <= inputs:
        return None
    at_launch = _name_of_ref(hit, ref, applied)
    made = ref.made.site
    owner = index.index_of(kernel)
    if at_launch is None or index.index_of(applied.scope) is not owner or index.index_of(made.scope) is not owner:
        return None
    try:
        edits = (cst_edits.insert_parameter(owner.text, owner.blocks, index.span(fdef, kernel), name, inputs),
                 cst_edits.append_argument(owner.text, owner.blocks, index.span(applied.node, applied.scope),
                                           f"{at_launch}[...]"))
    except cst_edits.EditFailed:
        return None
    if not cst_edits.edits_parse(owner.text, owner.blocks, edits):
        return None
    return Fix(f"Pass `{at_launch}[...]` to the launch as an input (a new kernel parameter `{name}`)",
               edits, preferred=True, safe=False)


def _name_of_ref(hit: Hit, ref: ClosedRef, applied) -> str | None:
    """A name that holds the Ref where the launch is applied: the kernel's own name for it, or
    the name its ``jax.new_ref(...)`` is assigned to."""
    ev = hit.ev
    order = ev.order_of(applied)
    made = ref.made.site.node
    candidates = [ref.use.id]
    for b in ref.made.site.scope.bindings.values():
        for one in b:
            if one.kind == "assign" and one.node is made:
                candidates.append(one.name)
    for name in candidates:
        b = ev.lookup(name, applied.scope, order)
        v = ev.binding_value(b, order) if b is not None else None
        if isinstance(v, CallVal) and v.site.node is made:
            return name
    return None


def ref_name(ref: ClosedRef) -> str:
    return ref.use.id


__all__ = ["ClosedOverRefRule", "ClosedRef", "closed_over_refs", "pass_as_operand_fix", "ref_name"]
