"""PAL613: ``pl.program_id`` / ``pl.num_programs`` evaluated where no kernel is traced: in the
function that builds the launch (directly or through a helper it calls), or at module level."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.evaluate import Decorated, Evaluator
from ...analysis.findings import Related
from ...analysis.rule_api import Hit, Report
from ...analysis.scopes import CallSite, Scope
from ...rules.base import PythonRule

GRID_QUERIES = frozenset({f"{api.PL}.program_id", f"{api.PL}.num_programs"})
_HELPER_DEPTH = 3


class ProgramIdOutsideKernel(PythonRule):
    """`pl.program_id` / `pl.num_programs` called outside any kernel or index map.

    Both look the grid up in the Pallas grid context (`axis_frame` in `jax/_src/pallas/core.py`),
    which exists only while a launch traces its kernel or its index maps. Called anywhere else
    (in the wrapper that builds the `pl.pallas_call`, before or after it, at module level, or in a
    helper the wrapper calls) the context is `None` and JAX fails a bare `assert`
    (`AssertionError` with no message), in every mode. Call them only inside the kernel or an
    index map; a position the wrapper needs is a grid index it can compute itself.
    """

    code = "PAL613"
    name = "program-id-outside-kernel"
    record = "program-id-outside-kernel"
    summary = "pl.program_id / pl.num_programs called outside any kernel or index map"
    label = "pl.program_id"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL, api.PL_KERNEL, api.CORE_MAP, api.PLGPU_KERNEL})
    modes = frozenset(Mode)  # (the assertion runs before any backend is involved)

    def applies(self, hit: Hit) -> bool:
        return True  # (it fails on any host: no launch is even built when it comes first)

    def check(self, hit: Hit) -> Report | None:
        builder = hit.launch.scope
        if builder is None or builder.kind not in ("function", "module") or _traced_under_a_grid(hit, builder):
            return None
        ev = hit.ev
        kernels = {id(k) for launch in hit.view.all_launches for k in launch.kernels}
        # The function that builds the launch, then the module's own statements (run at import;
        # each top-level statement is a block of its own, so they are found by name).
        sites = [(builder, site) for site in builder.calls] if builder.kind == "function" else []
        sites += [(site.scope, site) for site in hit.index.calls_to(("program_id", "num_programs"))
                  if site.scope.kind == "module"]
        for scope, site in sites:
            if site.guards:
                continue  # (it may not run)
            if _grid_query(ev, site):
                return self._report(hit, scope, site, None)
            inner = _helper_query(ev, site, _HELPER_DEPTH, set(kernels))
            if inner is not None:
                return self._report(hit, scope, site, inner)
        return None

    def _report(self, hit: Hit, builder: Scope, site: CallSite, inner: CallSite | None) -> Report:
        ev = hit.ev
        query = inner or site
        fn = ev.ext_name(ev.value(query.node.func, query.scope, ev.order_of(query))).rsplit(".", 1)[1]
        where = "at module level" if builder.kind == "module" else f"in `{builder.name}`, which builds the launch"
        related = [Related(hit.span_of(hit.launch.site.node, hit.launch.site.scope), "the launch")]
        if inner is not None:
            path = hit.index.path_of(inner.scope)
            related.insert(0, Related(ev.other(inner.scope).index.span(inner.node, inner.scope),
                                      f"`pl.{fn}` in the helper", None if path == hit.index.path else path))
            headline = (f"`{hit.code_of(site.node.func, site.scope)}(...)` calls `pl.{fn}` {where}: no kernel "
                        f"is traced there, so there is no grid to ask")
        else:
            headline = f"`pl.{fn}` is called {where}: no kernel is traced there, so there is no grid to ask"
        return Report("AssertionError: ", headline, span=hit.span_of(site.node, site.scope), key=id(site.node),
                      related=tuple(related), fixable=False)


def _grid_query(ev: Evaluator, site: CallSite) -> bool:
    return ev.ext_name(ev.value(site.node.func, site.scope, ev.order_of(site))) in GRID_QUERIES


def _helper_query(ev: Evaluator, site: CallSite, depth: int, seen: set[int]) -> CallSite | None:
    """The grid query a plain function called at ``site`` makes in its own body (not in
    functions it defines), following helpers ``depth`` calls deep; None when none surely runs.
    ``seen`` starts with the kernels: calling a decorated launch (``@functools.partial(
    pl.pallas_call, ...)``) runs its kernel under the grid."""
    if depth <= 0:
        return None
    callee = ev.value(site.node.func, site.scope, ev.order_of(site))
    if isinstance(callee, Decorated):
        return None  # (a decorated function runs as its decorator says: a launch, a jit...)
    fn = ev.function_of(callee)
    if fn is None or fn.kind != "function" or id(fn) in seen:
        return None
    seen.add(id(fn))
    inner_ev = ev.other(fn)
    for inner in fn.calls:
        if inner.guards:
            continue
        if _grid_query(inner_ev, inner):
            return inner
        found = _helper_query(inner_ev, inner, depth - 1, seen)
        if found is not None:
            return found
    return None


def _traced_under_a_grid(hit: Hit, builder: Scope) -> bool:
    """Whether the function that builds the launch is itself a kernel, or lies in one (a launch
    built inside another kernel's body runs there, under that kernel's grid)."""
    kernels = {id(k) for launch in hit.view.all_launches for k in launch.kernels}
    scope: Scope | None = builder
    while scope is not None:
        if id(scope) in kernels:
            return True
        scope = scope.parent
    return False
