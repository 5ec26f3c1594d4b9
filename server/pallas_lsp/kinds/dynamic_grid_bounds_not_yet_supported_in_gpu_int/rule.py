"""PAL004: a ``pallas_call`` grid entry that is not a Python int, under GPU interpret mode (the
static evaluator is ``rules/dynamic_grid_gpu_interpret.py``, which data rules share)."""
from __future__ import annotations

import ast
from dataclasses import replace

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Fix, Related
from ...analysis.rule_api import Hit, Report
from ...analysis.scopes import Scope
from ...rules.base import PythonRule
from ...rules.dynamic_grid_gpu_interpret import (ERROR, Staticness, StaticEvaluator, grid_entries, has_partial_blocks,
                                                 static_argnames_fix, unwrap_fix)


class DynamicGridInGpuInterpret(PythonRule):
    """GPU interpret mode needs a grid of Python ints.

    The GPU interpreter refuses grids whose bounds are only known at run time.
    A grid entry is dynamic when it is (or is computed from) an argument of a
    function that `jax.jit` traces without `static_argnums`/`static_argnames`, a
    `jnp` value (`jnp.int32(...)`, any `jnp` op) or a NumPy scalar (`np.int32`,
    `np.int64` — not Python ints). Shapes (`x.shape[0] // 4`), `x.size`,
    `jnp.size(x)`, `len(...)` and `pl.cdiv` of ints are static. `interpret=True`
    and TPU interpret params handle dynamic grids.

    GPU interpret mode also asserts that every BlockSpec covers its whole array;
    with partial blocks that bare `AssertionError` comes first.
    """

    code = "PAL004"
    name = "dynamic-grid-gpu-interpret"
    record = "dynamic-grid-bounds-not-yet-supported-in-gpu-int"
    summary = "a pallas_call grid entry that is not a Python int, under GPU interpret mode"

    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.GPU_INTERPRET})

    @staticmethod
    def _dynamic(hit: Hit) -> list[tuple[ast.expr, Scope, Staticness, StaticEvaluator]]:
        ev = hit.ev
        se = StaticEvaluator(ev)
        out = []
        for node, scope, order in grid_entries(ev, hit.launch):
            st = se.of(node, scope, order)
            if st.kind == "dynamic":
                out.append((node, scope, st, se))
        return out

    def check(self, hit: Hit) -> Report | None:
        dynamic = self._dynamic(hit)
        if not dynamic:
            return None
        ev = hit.ev
        node, scope, st, _ = dynamic[0]
        span = ev.index.span(node, scope)
        related = []
        if st.node is not None and st.scope is not None:
            src = ev.index.span(st.node, st.scope)
            if src.line != span.line:
                related.append(Related(src, f"dynamic because {st.reason}"))
        for other, oscope, ost, _ in dynamic[1:]:  # one report per launch: the others are related
            related.append(Related(ev.index.span(other, oscope), f"also not a Python int ({ost.reason})"))
        err = ERROR
        if has_partial_blocks(ev, hit.launch):
            err += (" (with BlockSpecs that do not cover whole arrays, GPU interpret mode first fails "
                    "with a bare AssertionError)")
        return Report(err, f"Grid entry `{ev.index.code_of(node, scope)}` is not a Python int, and GPU interpret "
                      f"mode needs a static grid ({st.reason})", span=span, key=id(node), related=tuple(related))

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        dynamic = self._dynamic(hit)
        if not dynamic:
            return []
        node, _, st, se = dynamic[0]
        fixes = [f for f in (static_argnames_fix(hit.ev, st), unwrap_fix(hit.ev, se, st, node)) if f is not None]
        if has_partial_blocks(hit.ev, hit.launch):
            # A static grid is not enough there: GPU interpret mode then fails on the BlockSpecs
            # (a bare AssertionError), so the fix is offered but not applied by `check --fix`.
            fixes = [replace(f, safe=False) for f in fixes]
        return fixes
