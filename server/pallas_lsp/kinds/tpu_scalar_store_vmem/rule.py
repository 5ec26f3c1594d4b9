"""PAL721: a compiled TPU kernel writes one element of a VMEM Ref."""
from __future__ import annotations

from ...analysis.ref_access import SCALAR_STORE_VMEM
from ...rules.ref_access_rule import RefAccessRule


class TpuScalarStoreVmem(RefAccessRule):
    """A kernel compiled for TPU stores a scalar into a VMEM Ref.

    `o_ref[i, j] = v` with one integer per dim of a VMEM Ref stores a scalar; the Mosaic TPU
    lowering stores only vectors into VMEM (`_masked_swap_lowering_rule` raises `ValueError:
    Cannot store scalars to VMEM`). Scalars live in SMEM. Write a (1, ..., 1) window instead
    (`o_ref[pl.ds(i, 1), pl.ds(j, 1)] = jnp.broadcast_to(v, (1, 1))`), or keep the scalar in
    an SMEM Ref. Interpret mode stores scalars anywhere.
    """

    code = "PAL721"
    name = "tpu-scalar-store-vmem"
    record = "tpu-scalar-store-vmem"
    summary = "a compiled TPU kernel writes one element of a VMEM Ref"
    defect_kind = SCALAR_STORE_VMEM
