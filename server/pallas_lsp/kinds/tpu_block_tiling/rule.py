"""PAL640: a VMEM block whose last two dims break the Mosaic TPU (8, 128) tiling rule."""
from __future__ import annotations

from ...analysis.tpu_blocks import TILING, TpuBlock
from ...rules.tpu_block_rule import TpuBlockTilingRule


class TpuBlockTiling(TpuBlockTilingRule):
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
    defect_kind = TILING

    def error(self, block: TpuBlock) -> str:
        array = ", ".join(map(str, block.array or ()))
        return ("ValueError: The Pallas TPU lowering currently requires that the last two dimensions of your block "
                "shape are divisible by 8 and 128 respectively, or be equal to the respective dimensions of the "
                f"overall array. Block spec for {block.origin} in pallas_call ... has block shape "
                f"{block.block_words()}, array shape ({array}) ...")
