"""The shared part of the Mosaic TPU block-tiling rules (PAL640, PAL641): both walk the
launch's blocks with both tiling checks, in the lowering's order, so only the first failing
block raises; each rule reports the defects of its own kind."""
from __future__ import annotations

from ..analysis import api
from ..analysis.contexts import Mode
from ..analysis.findings import Related
from ..analysis.launch_specs import first_spec_defect
from ..analysis.rule_api import Hit, Report
from ..analysis.tpu_blocks import TpuBlock, first_block_defect, one_d_tiling_defect, tiling_defect
from .base import PythonRule


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
        return super().applies(hit) and hit.context.lowered_for in (None, "tpu")

    def error(self, block: TpuBlock) -> str:
        raise NotImplementedError

    def check(self, hit: Hit) -> Report | None:
        ev = hit.ev
        if first_spec_defect(ev, hit.launch) is not None:
            return None  # (tracing fails first, with another error)
        defect = first_block_defect(ev, hit.launch, (tiling_defect, one_d_tiling_defect))
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
