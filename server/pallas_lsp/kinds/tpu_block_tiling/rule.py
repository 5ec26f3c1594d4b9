"""PAL640: a VMEM block whose last two dims break the Mosaic TPU (8, 128) tiling rule."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.launch_specs import first_spec_defect
from ...analysis.rule_api import Hit, Report
from ...analysis.tpu_blocks import TILING, first_block_defect, one_d_tiling_defect, tiling_defect
from ...rules.base import PythonRule


class TpuBlockTiling(PythonRule):
    """A BlockSpec whose last two block dims are not (8, 128)-aligned, compiled for TPU.

    `_check_block_mappings` in the Mosaic TPU lowering refuses a VMEM block of rank >= 2 whose
    last dim is neither a multiple of 128 nor the array's last dim, or whose second-to-last
    dim is neither a multiple of 8 nor the array's (a squeezed dim counts as 1). It runs when
    the launch is lowered for TPU; `interpret=True` does not check. Use aligned blocks, or
    the array's own dims.
    """

    code = "PAL640"
    name = "tpu-block-tiling"
    record = "tpu-block-tiling"
    summary = ("a VMEM block whose last two dims are not divisible by 8 and 128 nor equal to the array's, "
               "lowered for TPU")
    label = "pl.BlockSpec"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.TPU})  # (interpret mode never checks tiling)
    launch_apis = frozenset({api.PALLAS_CALL})

    def applies(self, hit: Hit) -> bool:
        # An explicit lowering for another platform never runs the Mosaic TPU checks, whatever
        # TPU APIs the launch uses (a PrefetchScalarGridSpec lowered for cuda).
        return super().applies(hit) and hit.context.lowered_for in (None, "tpu")

    def check(self, hit: Hit) -> Report | None:
        ev = hit.ev
        if first_spec_defect(ev, hit.launch) is not None:
            return None  # (tracing fails first, with another error)
        # Both tiling checks, in the lowering's order: only the first failing block raises.
        defect = first_block_defect(ev, hit.launch, (tiling_defect, one_d_tiling_defect))
        if defect is None or defect.kind != TILING:
            return None
        block = defect.block
        node, scope, _ = block.where
        span = ev.index.span(node, scope)
        related = [Related(ev.index.span(n, s), words) for (n, s, _), words in block.related
                   if ev.index.span(n, s).line != span.line]
        kernel = hit.launch.kernel
        if kernel is not None and kernel.node is not None and kernel.kind == "function":
            related.append(Related(ev.index.span(kernel.node, kernel.parent), "the kernel"))
        array = ", ".join(map(str, block.array or ()))
        error = ("ValueError: The Pallas TPU lowering currently requires that the last two dimensions of your block "
                 "shape are divisible by 8 and 128 respectively, or be equal to the respective dimensions of the "
                 f"overall array. Block spec for {block.origin} in pallas_call ... has block shape "
                 f"{block.block_words()}, array shape ({array}) ...")
        headline = defect.detail[0].upper() + defect.detail[1:]
        return Report(error, headline, span=span, key=id(node), related=tuple(related), fixable=False)
