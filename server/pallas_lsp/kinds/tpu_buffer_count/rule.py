"""PAL643: ``pipeline_mode=pl.Buffered(n)`` with n not 1 or 2 on a pallas_call BlockSpec, for TPU."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.launch_specs import first_spec_defect, read_launch_specs
from ...analysis.rule_api import Hit, Report
from ...analysis.tpu_blocks import buffer_count, first_mapping_defect, surely_windowed, tpu_blocks
from ...analysis.tpu_params import sequence_length, tpu_params_arg
from ...rules.base import PythonRule
from ...rules.tpu_block_rule import lowered_by_mosaic_tpu


class TpuBufferCount(PythonRule):
    """A pallas_call BlockSpec with `pipeline_mode=pl.Buffered(n)`, n not 1 or 2, compiled for TPU.

    The Mosaic TPU pipeline that `pl.pallas_call` lowers to (`lower_jaxpr_into_pipelined_module`)
    only single- or double-buffers a windowed VMEM block; any other count raises. (A block that
    is the whole array is forced to single buffering, and a launch without a grid ignores
    the mode.) Deeper buffering is for `pltpu.emit_pipeline`. `interpret=True` does not check.
    """

    code = "PAL643"
    name = "tpu-buffer-count"
    record = "tpu-buffer-count"
    summary = "pipeline_mode=pl.Buffered(n) with n not 1 or 2 on a pallas_call BlockSpec, lowered for TPU"
    label = "pl.Buffered"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.TPU})  # (interpret mode never reads pipeline_mode)
    launch_apis = frozenset({api.PALLAS_CALL})

    def applies(self, hit: Hit) -> bool:
        # Lowered explicitly for another platform, the Mosaic TPU lowering never runs.
        return super().applies(hit) and lowered_by_mosaic_tpu(hit)

    def check(self, hit: Hit) -> Report | None:
        ev, launch = hit.ev, hit.launch
        specs = read_launch_specs(ev, launch)
        if specs is None or not specs.grid_rank:
            return None  # (no grid, or not known: the mode is never read)
        blocks = tpu_blocks(ev, launch)
        if not blocks:
            return None
        found = None
        for block in blocks:
            got = buffer_count(ev, block)
            if got is not None and got[0] not in (1, 2):
                if block.memory_space in ("default", "vmem") and surely_windowed(block):
                    found = (block, got)
                break  # (the first bad count raises; a block that may be the whole array is forced to 1)
        if found is None:
            return None
        if first_spec_defect(ev, launch) is not None:
            return None  # (tracing fails first)
        if first_mapping_defect(ev, launch) is not None:
            return None  # (the block mappings are checked first)
        semantics = tpu_params_arg(ev, launch, "dimension_semantics")
        if semantics is not None:
            length = sequence_length(ev, semantics.where)
            if length != specs.grid_rank:
                return None  # (a length mismatch, or one not known, is raised before)
        block, (count, call, scope) = found
        # Underline the pipeline_mode= argument; a pl.Buffered made elsewhere is related.
        site = block.entry.call.site
        argument = ev.kwarg(site, "pipeline_mode")
        span = ev.index.span(argument if argument is not None else site.node, site.scope)
        related = []
        made = ev.index.span(call, scope)
        if made.line != span.line:
            related.append(Related(made, f"pl.Buffered({count}) made here"))
        spec = ev.index.span(block.where[0], block.where[1])
        if spec.line != span.line:
            related.append(Related(spec, f"the BlockSpec for {block.origin}"))
        error = f"LoweringException: Only single (1) and double (2) buffering are supported. Got {count}."
        headline = (f"pl.Buffered({count}) on the BlockSpec for {block.origin}: a pallas_call lowered for TPU "
                    "only single- (1) or double- (2) buffers a block; deeper buffering needs pltpu.emit_pipeline")
        return Report(error, headline, span=span, key=id(argument), related=tuple(related), fixable=False)
