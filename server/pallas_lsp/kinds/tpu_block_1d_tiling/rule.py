"""PAL641: a rank-1 VMEM block that is not a legal 1-D Mosaic TPU tile."""
from __future__ import annotations

from ...analysis.tpu_blocks import ONE_D_TILING, TpuBlock
from ...rules.tpu_block_rule import TpuBlockTilingRule


class TpuBlock1DTiling(TpuBlockTilingRule):
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
    defect_kind = ONE_D_TILING

    def error(self, block: TpuBlock) -> str:
        return ("ValueError: The Pallas TPU lowering currently requires that rank 1 block shapes, either 1) the "
                "first (and only) dimension of the block shape is equal to the first (and only) dimension of the "
                "array shape, or 2) ... a multiple of 1024, or 3) ... a power of 2 and at least the tiling size "
                f"... Block spec for {block.origin} in pallas_call ... has block shape {block.block_words()}, "
                f"array shape ({block.array[0] if block.array else '?'},) ...")
