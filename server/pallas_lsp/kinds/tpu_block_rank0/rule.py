"""PAL645: a 0-d operand or output whose block is in VMEM (or ANY/HBM), lowered for TPU."""
from __future__ import annotations

from ...analysis.tpu_blocks import RANK0, TpuBlock
from ...rules.tpu_block_rule import TpuBlockTilingRule


class TpuBlockRank0(TpuBlockTilingRule):
    """A block of rank 0 outside SMEM, compiled for TPU.

    `_check_block_mappings` in the Mosaic TPU lowering refuses a block of rank 0: a 0-d
    operand or output with the default BlockSpec (or `pl.BlockSpec()`, or a block shape `()`)
    lives in VMEM, which the lowering tiles by rank >= 1 blocks. SMEM blocks that are the
    whole array are skipped by the check. It runs when the launch is lowered for TPU;
    `interpret=True` does not check. Put the scalar in SMEM
    (`pl.BlockSpec(memory_space=pltpu.SMEM)`), or pass it as a 1-element array.
    """

    code = "PAL645"
    name = "tpu-block-rank0"
    record = "tpu-block-rank0"
    summary = "a 0-d operand or output with a VMEM block (the default BlockSpec), lowered for TPU"
    defect_kind = RANK0

    def error(self, block: TpuBlock) -> str:
        return ("ValueError: The Pallas TPU lowering currently supports only blocks of rank >= 1. Block spec for "
                f"{block.origin} in pallas_call ... has block shape (), array shape (), ...")
