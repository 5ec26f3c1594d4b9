"""PAL647: a BlockSpec in memory space ANY or HBM whose window is not the whole array, lowered for TPU."""
from __future__ import annotations

from ...analysis.tpu_blocks import ANY_WINDOWED, TpuBlock
from ...rules.tpu_block_rule import TpuBlockTilingRule


class TpuAnyMemoryWindowed(TpuBlockTilingRule):
    """A windowed BlockSpec in `pl.ANY` / `pltpu.HBM`, compiled for TPU.

    A ref in ANY or HBM stays where it is (the kernel moves slices of it by DMA), so
    `_check_block_mappings` in the Mosaic TPU lowering accepts such a block only with a trivial
    window: the block is the whole array and the index map returns literal zeros. A smaller
    block, or an index map that follows the grid, raises. It runs when the launch is lowered
    for TPU; `interpret=True` does not check. Give the spec no block shape
    (`pl.BlockSpec(memory_space=pl.ANY)`) and copy slices in the kernel
    (`pltpu.sync_copy(x_hbm.at[pl.ds(...)], ...)`), or keep the block in VMEM.
    """

    code = "PAL647"
    name = "tpu-any-memory-windowed"
    record = "tpu-any-memory-windowed"
    summary = "a BlockSpec in memory space ANY/HBM with a block smaller than the array or a moving index map, " \
              "lowered for TPU"
    defect_kind = ANY_WINDOWED

    def error(self, block: TpuBlock) -> str:
        return ("ValueError: The Pallas TPU lowering currently supports in memory space ANY only blocks having the "
                "same block shape as the array shape and a trivial index_map (returning all 0s).Block spec for "
                f"{block.origin} in pallas_call ... has block shape {block.block_words()} ...")
