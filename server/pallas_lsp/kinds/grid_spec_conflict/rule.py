"""PAL607: a pallas_call given grid_spec= and also grid= / in_specs= / out_specs= / scratch_shapes=."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.launch_signature import grid_spec_call, grid_spec_conflict
from ...analysis.rule_api import Hit, Report
from ...rules.base import PythonRule

_MUST_BE = {"grid": "`()`", "in_specs": "`no_block_spec`", "out_specs": "`no_block_spec`",
            "scratch_shapes": "`()`"}


class GridSpecConflict(PythonRule):
    """`pl.pallas_call` is given a grid spec and also its own grid, specs or scratch.

    With `grid_spec=`, the grid, the in/out specs and the scratch shapes all come from the grid
    spec. `pl.pallas_call` (jax/_src/pallas/pallas_call.py) refuses a non-empty `grid=` or
    `scratch_shapes=`, and any `in_specs=` / `out_specs=`, next to it: `ValueError: If
    `grid_spec` is specified, then `grid` must be `()`. It is (8,)`. It is raised when
    `pl.pallas_call(...)` is called, in every mode. Put everything inside the grid spec.
    """

    code = "PAL607"
    name = "grid-spec-conflict"
    record = "grid-spec-conflict"
    summary = "pallas_call with grid_spec= and also grid=, in_specs=, out_specs= or scratch_shapes="
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    label = "pl.pallas_call"
    modes = frozenset(Mode)  # (raised when the launch is built: before any backend is involved)

    def applies(self, hit: Hit) -> bool:
        return True

    def check(self, hit: Hit) -> Report | None:
        conflict = grid_spec_conflict(hit.ev, hit.launch)
        if conflict is None:
            return None
        spec = grid_spec_call(hit.ev, hit.launch)
        assert spec is not None
        related = (Related(hit.span_of(spec.site.node, spec.site.scope), "the grid spec that holds them"),)
        k = conflict.keyword
        error = (f"ValueError: If `grid_spec` is specified, then `{k}` must be {_MUST_BE[k]}. "
                 f"It is {conflict.shown}")
        headline = (f"`{k}=` is given beside `grid_spec=`; with a grid spec, `{k}` belongs inside it")
        return Report(error, headline, span=hit.span_of(conflict.node, conflict.scope),
                      key=("grid-spec", k), related=related, fixable=False)


__all__ = ["GridSpecConflict"]
