"""PAL663: a ``pl.pallas_call`` grid entry that is a traced value, compiled by Triton."""
from __future__ import annotations

from ...analysis.findings import Fix
from ...analysis.gpu_launch import DYNAMIC_GRID, TritonDefect
from ...analysis.rule_api import Hit, Report
from ...rules.dynamic_grid_gpu_interpret import grid_entries, static_argnames_fix
from ...rules.triton_launch_rule import TracingStaticEvaluator, TritonLaunchRule


class TritonDynamicGridUnsupported(TritonLaunchRule):
    """A grid bound known only at run time, on a `pl.pallas_call` compiled by Triton.

    A grid entry that is a traced value (an argument `jax.jit` traces, `pl.cdiv` of one, a `jnp`
    scalar) makes a dynamic grid bound; Pallas's Triton lowering (`pallas_call_lowering`,
    `jax/_src/pallas/triton/pallas_call_registration.py`) refuses it first of all its checks.
    Shapes (`x.shape[0] // 128`), `len(...)` and Python ints are static. Make the value static
    (`static_argnames` of the `jax.jit` that traces it, then call with a Python int), or give the
    grid from shapes and mask the tail. In jax 0.9-0.10 a GPU pallas_call without Triton params is
    compiled by Mosaic GPU, which refuses it first too ("dynamic grid bounds not supported in the
    Mosaic GPU backend").
    """

    code = "PAL663"
    name = "triton-dynamic-grid-unsupported"
    record = "triton-dynamic-grid-unsupported"
    summary = "a pl.pallas_call grid entry that is a traced value, compiled by Triton"
    label = "grid"
    defect_kind = DYNAMIC_GRID
    mosaic_error = "dynamic grid bounds not supported in the Mosaic GPU backend"
    verified_on = ("0.12.0.1", "0.10.2")  # (the Mosaic GPU examples run under jax 0.10.2)
    fixable = True

    def error(self, defect: TritonDefect) -> str:
        return "NotImplementedError: dynamic grid bounds not supported in the Triton backend"

    def headline(self, hit: Hit, defect: TritonDefect) -> str:
        node, scope, _ = defect.where
        return (f"Grid entry `{hit.code_of(node, scope)}` is a traced value ({defect.detail}), and "
                f"{self.backend_words(hit)} needs static grid bounds")

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        if self.defect(hit) is None:
            return []
        se = TracingStaticEvaluator(hit.ev)
        for node, scope, order in grid_entries(hit.ev, hit.launch):
            st = se.of(node, scope, order)
            if st.kind == "dynamic":
                fix = static_argnames_fix(hit.ev, st)
                return [fix] if fix is not None else []
        return []
