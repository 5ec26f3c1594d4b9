"""PAL604: ``pl.program_id(axis)`` / ``pl.num_programs(axis)`` with an axis the launch's grid lacks."""
from __future__ import annotations

import ast

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.evaluate import CallVal, PartialVal, TupleVal
from ...analysis.scopes import DecoratorSite, Scope
from ...analysis.findings import Related
from ...analysis.launch_specs import read_launch_specs
from ...analysis.rule_api import NOT_KNOWN, Hit, Report
from ...analysis.shapes import dimension
from ...rules.base import PythonRule

# Calls that trace a function under a grid of their own: a program id inside them is not the
# launch's (emit_pipeline's body, a nested launch).
_OWN_GRID_WORDS = ("pipeline", "pallas_call", "core_map", "kernel")
# A function reached through a BlockSpec built in the kernel is an index map of an inner pipeline
# (tpu-inference's megablox gmm_v2: `pl.num_programs(1)` in an emit_pipeline spec's index map,
# correct code): it runs under that pipeline's grid, not the launch's.
_SPEC_CALLS = (f"{api.PL}.BlockSpec",)


class ProgramIdAxisOutOfRange(PythonRule):
    """`pl.program_id` / `pl.num_programs` asks for a grid axis the launch does not have.

    `pl.pallas_call` traces its kernel under the launch's grid, in every mode; `program_id(axis)`
    and `num_programs(axis)` look the axis up in that grid and raise `ValueError: Axis 1 is out
    of bounds for grid (2,)` when `axis >= len(grid)` or `axis < -len(grid)` (no grid is `()`).
    Give the grid that axis, or ask for one it has. Checked only where the axis is a constant
    and the grid's length is spelled out.
    """

    code = "PAL604"
    name = "program-id-axis-out-of-range"
    record = "program-id-axis-out-of-range"
    summary = "pl.program_id / pl.num_programs with an axis outside the launch's grid"
    apis = frozenset({f"{api.PL}.program_id", f"{api.PL}.num_programs"})
    label = "pl.program_id"
    modes = frozenset(Mode)  # (checked while the kernel is traced: before any backend is involved)

    def applies(self, hit: Hit) -> bool:
        return True  # (tracing fails on any host, before the CPU host check of a compiled launch)

    def check(self, hit: Hit) -> Report | None:
        if hit.launch.api.name != api.PALLAS_CALL or hit.reached is None or self._under_own_grid(hit):
            return None
        if self._maybe_not_run(hit):
            return None
        node = hit.argument(0, "axis")
        axis = hit.literal(node) if node is not None else None
        if not isinstance(axis, int) or isinstance(axis, bool):
            return None
        ev = hit.ev
        specs = read_launch_specs(ev, hit.launch)
        if specs is None or specs.grid_rank is None:
            return None
        rank = specs.grid_rank
        if -rank <= axis < rank:
            return None
        grid_words = self._grid_words(hit, specs.grid, rank)
        fn = hit.api.rsplit(".", 1)[1]
        error = f"ValueError: Axis {axis} is out of bounds for grid {grid_words}"
        axes = "no grid axes" if rank == 0 else f"{rank} grid ax{'is' if rank == 1 else 'es'} (0..{rank - 1})"
        headline = f"`pl.{fn}({axis})` asks for grid axis {axis}, but this launch has {axes}"
        related = [Related(hit.span_of(hit.launch.site.node, hit.launch.site.scope),
                           "the launch whose grid is counted" if specs.grid is None else "the launch")]
        if specs.grid is not None:
            related.insert(0, Related(hit.span_of(specs.grid[0], specs.grid[1]), f"the grid: {rank} ax"
                                      f"{'is' if rank == 1 else 'es'}"))
        return Report(error, headline, related=tuple(related), fixable=False)

    @staticmethod
    def _maybe_not_run(hit: Hit) -> bool:
        """Tracing raises only if the call runs: quiet for one under an ``if`` whose test the
        analysis cannot decide for its branch, or in a branch of a conditional expression
        (tpu-inference's ``pl.program_id(0) if _gm_id is None else _gm_id``, whose callers all
        pass ``_gm_id``)."""
        for test, branch in hit.site.guards:
            value = hit.literal(test)
            if value is NOT_KNOWN or bool(value) != branch:
                return True
        func = hit.reached.scope.node if hit.reached is not None else None
        for node in ast.walk(func) if func is not None else ():
            if isinstance(node, ast.IfExp) and any(n is hit.site.node for part in (node.body, node.orelse)
                                                   for n in ast.walk(part)):
                return True
        return False

    @staticmethod
    def _under_own_grid(hit: Hit) -> bool:
        """The call is reached through a call, or a def decorated by one, that traces under a grid
        of its own (``pltpu.emit_pipeline``, a nested launch)."""
        ev = hit.ev
        reached = hit.reached
        assert reached is not None
        applied = [(site.node, site.scope, ev.order_of(site)) for site in reached.chain]
        applied += [(site.node.func, site.scope, ev.order_of(site)) for site in reached.chain
                    if isinstance(site, DecoratorSite) and isinstance(site.node, ast.Call)]
        scope: Scope | None = reached.scope
        while scope is not None and scope is not reached.root:
            for d in getattr(scope.node, "decorator_list", ()):
                applied.append((d, scope.parent or scope, None))
                if isinstance(d, ast.Call):
                    applied.append((d.func, scope.parent or scope, None))
            scope = scope.parent
        for site in reached.chain:
            made = ev.value(site.node, site.scope, ev.order_of(site)) if isinstance(site.node, ast.Call) else None
            if made is not None and ev.called_api(made) in _SPEC_CALLS:
                return True
        for node, where, order in applied:
            v = ev.value(node, where, order)
            for _ in range(3):  # (``functools.partial(pltpu.emit_pipeline, ...)``, a factory call)
                if isinstance(v, PartialVal):
                    v = v.func
                elif isinstance(v, CallVal) and ev.called_api(v) in (None, "functools.partial"):
                    v = v.func
                else:
                    break
            name = (ev.called_api(v) if isinstance(v, CallVal) else ev.ext_name(v)) or ""
            if any(w in name.rsplit(".", 1)[-1] for w in _OWN_GRID_WORDS):
                return True
        return False

    @staticmethod
    def _grid_words(hit: Hit, grid, rank: int) -> str:
        """``(2,)`` as JAX prints the grid, where its sizes are constants."""
        if grid is None:
            return "()"
        ev = hit.ev
        v = ev.value(*grid)
        items = [dimension(ev, *item) for item in v.items] if isinstance(v, TupleVal) else [ev.const(*grid)]
        if all(isinstance(d, int) for d in items):
            return str(tuple(items))
        return f"of {rank} ax{'is' if rank == 1 else 'es'}"


__all__ = ["ProgramIdAxisOutOfRange"]
