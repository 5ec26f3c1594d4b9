"""PAL720: a compiled TPU kernel reads or writes a Ref in ANY or HBM memory directly."""
from __future__ import annotations

from ...analysis.ref_access import ANY_LOAD_STORE
from ...rules.ref_access_rule import RefAccessRule


class TpuAnyMemoryLoadStore(RefAccessRule):
    """A kernel compiled for TPU indexes a Ref that stays in HBM.

    A Ref whose BlockSpec says `memory_space=pl.ANY` (or `pltpu.HBM`) is not copied into VMEM
    by the pipeline: the kernel gets the array where it lies. The Mosaic TPU lowering emits vector
    loads and stores only for VMEM and SMEM Refs (`_load_lowering_rule`,
    `_masked_swap_lowering_rule`); any other memory space raises `ValueError: Loads are only
    allowed on VMEM and SMEM references.` (for a write: `Loads and stores are only allowed ...`),
    and for ANY it adds that such memory is accessed with async copies. Interpret mode reads
    any memory space, so the kernel runs there and fails only when compiled. Copy the window
    into a VMEM scratch with `pltpu.make_async_copy(src, dst, sem)` and read it there, or let
    the pipeline bring the block in (`memory_space=pltpu.VMEM`, or no memory space).
    """

    code = "PAL720"
    name = "tpu-any-memory-load-store"
    record = "tpu-any-memory-load-store"
    summary = "a compiled TPU kernel reads or writes a Ref in ANY or HBM memory directly"
    defect_kind = ANY_LOAD_STORE
