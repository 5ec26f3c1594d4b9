"""PAL722: a compiled TPU kernel reads or writes a vector of an SMEM Ref."""
from __future__ import annotations

from ...analysis.ref_access import SMEM_VECTOR
from ...rules.ref_access_rule import RefAccessRule


class TpuSmemVectorAccess(RefAccessRule):
    """A kernel compiled for TPU moves a vector in or out of an SMEM Ref.

    SMEM (scalar memory: scalar-prefetch operands, `memory_space=pltpu.SMEM`,
    `pltpu.SMEM(...)` scratch) is read and written one scalar at a time: the Mosaic TPU
    lowering raises `ValueError: Can only load scalars from SMEM` for a read whose result has a
    shape and `Can only store scalars to SMEM` for such a write (`_load_lowering_rule`,
    `_masked_swap_lowering_rule`). A slice, `pl.ds`, `[...]` on a Ref with dims, or fewer
    integer indices than dims all move vectors. Index every dim with a scalar (in a loop for
    several values), or keep vector data in VMEM.
    """

    code = "PAL722"
    name = "tpu-smem-vector-access"
    record = "tpu-smem-vector-access"
    summary = "a compiled TPU kernel reads or writes a vector of an SMEM Ref"
    defect_kind = SMEM_VECTOR
