"""The shared part of the Mosaic TPU block-mapping rules (PAL640, PAL641, PAL645, PAL647, PAL649):
each walks the launch's block mappings with every check ``_check_block_mappings`` makes, in the
lowering's order, so only the first failing block raises; each rule reports the defects of its
own kind."""
from __future__ import annotations

from ..analysis import api
from ..analysis.contexts import Mode
from ..analysis.findings import Related
from ..analysis.launch_specs import first_spec_defect
from ..analysis.rule_api import Hit, Report
from ..analysis.tpu_blocks import TpuBlock, first_mapping_defect
from ..analysis.tpu_params import params_call
from .base import PythonRule


def lowered_by_mosaic_tpu(hit: Hit) -> bool:
    """Whether a TPU-compiled launch reaches the Mosaic TPU lowering: not lowered explicitly for
    another platform, and not carrying another backend's compiler params (which fail first)."""
    if hit.context.lowered_for not in (None, "tpu"):
        return False
    got = params_call(hit.ev, hit.launch)
    return got is None or got[1] == "tpu"


class TpuBlockTilingRule(PythonRule):
    """A rule on the first block the Mosaic TPU lowering refuses, where its defect is of
    ``defect_kind``; ``error`` says what JAX raises for that block."""

    defect_kind = ""
    label = "pl.BlockSpec"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.TPU})  # (interpret mode never checks tiling)
    launch_apis = frozenset({api.PALLAS_CALL})

    def applies(self, hit: Hit) -> bool:
        # An explicit lowering for another platform never runs the Mosaic TPU checks, whatever
        # TPU APIs the launch uses (a PrefetchScalarGridSpec lowered for cuda).
        return super().applies(hit) and lowered_by_mosaic_tpu(hit)

    def error(self, block: TpuBlock) -> str:
        raise NotImplementedError

    def check(self, hit: Hit) -> Report | None:
        ev = hit.ev
        if first_spec_defect(ev, hit.launch) is not None:
            return None  # (tracing fails first, with another error)
        defect = first_mapping_defect(ev, hit.launch)
        if defect is None or defect.kind != self.defect_kind:
            return None
        block = defect.block
        node, scope, _ = block.where
        span = ev.index.span(node, scope)
        related = [Related(ev.index.span(n, s), words) for (n, s, _), words in block.related
                   if ev.index.span(n, s).line != span.line]
        kernel = hit.launch.kernel
        if kernel is not None and kernel.node is not None and kernel.kind == "function":
            related.append(Related(ev.index.span(kernel.node, kernel.parent), "the kernel"))
        headline = defect.detail[0].upper() + defect.detail[1:]
        return Report(self.error(block), headline, span=span, key=id(node), related=tuple(related), fixable=False)
