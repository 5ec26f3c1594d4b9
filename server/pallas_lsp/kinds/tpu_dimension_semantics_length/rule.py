"""PAL642: ``dimension_semantics`` with a length other than the grid's, lowered for TPU."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.launch_specs import first_spec_defect, read_launch_specs
from ...analysis.rule_api import Hit, Report
from ...analysis.tpu_blocks import first_mapping_defect
from ...analysis.tpu_params import sequence_length, tpu_params_arg
from ...rules.base import PythonRule
from ...rules.tpu_block_rule import lowered_by_mosaic_tpu


def _entries(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"


def _axes(n: int) -> str:
    return f"{n} ax{'is' if n == 1 else 'es'}"


class TpuDimensionSemanticsLength(PythonRule):
    """`dimension_semantics` whose length is not the grid's, compiled for TPU.

    The Mosaic TPU lowering (`MosaicGridMapping.__init__`) needs one dimension semantic per
    grid axis (the axes `jax.vmap` adds are not counted) and raises when
    `pltpu.CompilerParams(dimension_semantics=...)` has another length. It runs when the
    launch is lowered for TPU; `interpret=True` does not check. Give one entry per grid axis.
    """

    code = "PAL642"
    name = "tpu-dimension-semantics-length"
    record = "tpu-dimension-semantics-length"
    summary = "pltpu.CompilerParams(dimension_semantics=...) with a length other than the grid's, lowered for TPU"
    label = "dimension_semantics"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.TPU})  # (interpret mode never reads dimension_semantics)
    launch_apis = frozenset({api.PALLAS_CALL})

    def applies(self, hit: Hit) -> bool:
        # Lowered explicitly for another platform, the Mosaic TPU lowering never runs.
        return super().applies(hit) and lowered_by_mosaic_tpu(hit)

    def check(self, hit: Hit) -> Report | None:
        ev, launch = hit.ev, hit.launch
        arg = tpu_params_arg(ev, launch, "dimension_semantics")
        specs = read_launch_specs(ev, launch)
        if arg is None or specs is None or specs.grid_rank is None:
            return None
        length = sequence_length(ev, arg.where)
        if length is None or length == specs.grid_rank:
            return None
        if first_spec_defect(ev, launch) is not None:
            return None  # (tracing fails first, with another error)
        if first_mapping_defect(ev, launch) is not None:
            return None  # (the block mappings are checked before the grid mapping is built)
        option = launch.options["compiler_params"]
        span = ev.index.span(option[0], option[1])
        related = []
        semantics_span = ev.index.span(arg.where[0], arg.where[1])
        if semantics_span.line != span.line:
            related.append(Related(semantics_span, "the dimension_semantics"))
        if specs.grid is not None:
            related.append(Related(ev.index.span(specs.grid[0], specs.grid[1]), f"the grid ({_axes(specs.grid_rank)})"))
        error = ("ValueError: Length of grid does not match length of dimension semantics. "
                 f"len(grid)={specs.grid_rank}, len(dimension_semantics)={length}")
        grid_words = "no grid (0 axes)" if specs.grid is None else f"a grid of {_axes(specs.grid_rank)}"
        headline = (f"dimension_semantics has {_entries(length)} but the launch has {grid_words}: "
                    "the Mosaic TPU lowering needs one per grid axis")
        return Report(error, headline, span=span, key=id(option[0]), related=tuple(related), fixable=False)
