"""PAL646: a pallas_call without a grid whose BlockSpec is a window of its array, lowered for TPU."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.launch_specs import first_spec_defect, read_launch_specs
from ...analysis.rule_api import Hit, Report
from ...analysis.transforms import BATCH
from ...analysis.tpu_blocks import first_mapping_defect, tpu_blocks, windowed
from ...analysis.tpu_params import sequence_length, tpu_params_arg
from ...rules.base import PythonRule
from ...rules.tpu_block_rule import lowered_by_mosaic_tpu


class TpuGridlessWindowing(PythonRule):
    """A grid-free pallas_call with a BlockSpec that is not the whole array, compiled for TPU.

    Without a grid (no `grid=`, or `grid=()`) the Mosaic TPU lowering
    (`lower_jaxpr_into_pipelined_module`) has no pipeline to move windows through, so every
    block must be trivial: the whole array, with an index map returning zeros. A smaller
    block, or an index map that returns anything else, raises NotImplementedError. (Under
    `jax.vmap` the batch axis becomes a grid axis, and the check does not apply.) It runs when
    the launch is lowered for TPU; `interpret=True` does not check. Add a grid that walks the
    blocks, or make the block the whole array.
    """

    code = "PAL646"
    name = "tpu-gridless-windowing"
    record = "tpu-gridless-windowing"
    summary = "a pallas_call without a grid whose BlockSpec is smaller than its array, lowered for TPU"
    label = "pl.BlockSpec"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.TPU})  # (interpret mode never checks windows)
    launch_apis = frozenset({api.PALLAS_CALL})

    def applies(self, hit: Hit) -> bool:
        return super().applies(hit) and lowered_by_mosaic_tpu(hit)

    def check(self, hit: Hit) -> Report | None:
        ev, launch = hit.ev, hit.launch
        specs = read_launch_specs(ev, launch)
        if specs is None or specs.grid_rank != 0:
            return None
        if any(t.kind == BATCH for t in launch.transforms):
            return None  # (jax.vmap adds a grid axis)
        blocks = tpu_blocks(ev, launch)
        found = next((b for b in blocks or () if windowed(ev, b)), None)
        if found is None:
            return None
        if first_spec_defect(ev, launch) is not None or first_mapping_defect(ev, launch) is not None:
            return None  # (tracing, or the block mapping checks, fail first)
        semantics = tpu_params_arg(ev, launch, "dimension_semantics")
        if semantics is not None:
            with ev.within(semantics.params.frames):
                if sequence_length(ev, semantics.where) != 0:
                    return None  # (a length mismatch with the empty grid is raised before)
        node, scope, _ = found.where
        span = ev.index.span(node, scope)
        related = []
        if specs.grid is not None:
            grid = ev.index.span(specs.grid[0], specs.grid[1])
            if grid.line != span.line:
                related.append(Related(grid, "the empty grid"))
        for (n, s, _), words in found.related:
            if ev.index.span(n, s).line != span.line:
                related.append(Related(ev.index.span(n, s), words))
        array = "(" + ", ".join(map(str, found.array)) + ")" if found.array is not None else "its array"
        what = f"block {found.block_words()}" if found.dims is not None else "the block"
        headline = (f"The launch has no grid, but the BlockSpec for {found.origin} is a window ({what} of {array}, "
                    "or an index map that is not all zeros): a grid-free pallas_call lowered for TPU takes only "
                    "whole-array blocks")
        error = "NotImplementedError: Non-trivial windowing is not supported for grid-free pallas_call."
        return Report(error, headline, span=span, key=id(node), related=tuple(related), fixable=False)
