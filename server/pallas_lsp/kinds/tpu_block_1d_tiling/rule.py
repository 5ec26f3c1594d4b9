"""PAL641: a rank-1 VMEM block that is not a legal 1-D Mosaic TPU tile."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.launch_specs import first_spec_defect
from ...analysis.rule_api import Hit, Report
from ...analysis.tpu_blocks import ONE_D_TILING, first_block_defect, one_d_tiling_defect, tiling_defect
from ...rules.base import PythonRule


class TpuBlock1DTiling(PythonRule):
    """A rank-1 BlockSpec whose size is not a legal 1-D tile, compiled for TPU.

    `_check_block_mappings` in the Mosaic TPU lowering accepts a rank-1 VMEM block of b
    elements over an array of n only if b == n, b is a multiple of 1024 (8 sublanes x 128
    lanes), or b is a power of 2 of at least 128 * (32 // bitwidth): 128 for 32-bit dtypes,
    256 for 16-bit, 512 for 8-bit. It runs when the launch is lowered for TPU;
    `interpret=True` does not check. Use the whole array, a multiple of 1024, or a large
    enough power of 2.
    """

    code = "PAL641"
    name = "tpu-block-1d-tiling"
    record = "tpu-block-1d-tiling"
    summary = ("a rank-1 VMEM block that is neither the array's length, a multiple of 1024, nor a power of 2 "
               "of at least the dtype's tile, lowered for TPU")
    label = "pl.BlockSpec"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.TPU})  # (interpret mode never checks tiling)
    launch_apis = frozenset({api.PALLAS_CALL})

    def applies(self, hit: Hit) -> bool:
        # Lowered explicitly for another platform, the Mosaic TPU checks never run.
        return super().applies(hit) and hit.context.lowered_for in (None, "tpu")

    def check(self, hit: Hit) -> Report | None:
        ev = hit.ev
        if first_spec_defect(ev, hit.launch) is not None:
            return None  # (tracing fails first, with another error)
        # Both tiling checks, in the lowering's order: only the first failing block raises.
        defect = first_block_defect(ev, hit.launch, (tiling_defect, one_d_tiling_defect))
        if defect is None or defect.kind != ONE_D_TILING:
            return None
        block = defect.block
        node, scope, _ = block.where
        span = ev.index.span(node, scope)
        related = [Related(ev.index.span(n, s), words) for (n, s, _), words in block.related
                   if ev.index.span(n, s).line != span.line]
        kernel = hit.launch.kernel
        if kernel is not None and kernel.node is not None and kernel.kind == "function":
            related.append(Related(ev.index.span(kernel.node, kernel.parent), "the kernel"))
        error = ("ValueError: The Pallas TPU lowering currently requires that rank 1 block shapes, either 1) the "
                 "first (and only) dimension of the block shape is equal to the first (and only) dimension of the "
                 "array shape, or 2) ... a multiple of 1024, or 3) ... a power of 2 and at least the tiling size "
                 f"... Block spec for {block.origin} in pallas_call ... has block shape {block.block_words()}, "
                 f"array shape ({block.array[0] if block.array else '?'},) ...")
        headline = defect.detail[0].upper() + defect.detail[1:]
        return Report(error, headline, span=span, key=id(node), related=tuple(related), fixable=False)
