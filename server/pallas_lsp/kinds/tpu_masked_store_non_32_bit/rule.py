"""PAL727: a compiled TPU kernel stores with a mask into a Ref of 8- or 16-bit data."""
from __future__ import annotations

from ...analysis.ref_access import MASKED_STORE_NARROW
from ...rules.ref_access_rule import RefAccessRule


class TpuMaskedStoreNon32Bit(RefAccessRule):
    """A kernel compiled for TPU stores into a Ref of a narrow dtype with a mask.

    `pltpu.store(ref, value, mask=m)` lowers as a masked swap, which the Mosaic TPU lowering
    supports for 32-bit data only: `_masked_swap_lowering_rule` raises
    `NotImplementedError: masked swap with non-32-bit data` when the stored dtype (the Ref's:
    bfloat16, float16, int16, int8...) is narrower. Select and store the whole window instead
    (`ref[...] = jnp.where(m, value, ref[...])`), or keep the Ref in a 32-bit dtype.
    """

    code = "PAL727"
    name = "tpu-masked-store-non-32-bit"
    record = "tpu-masked-store-non-32-bit"
    summary = "a compiled TPU kernel stores with a mask into a Ref of 8- or 16-bit data"
    defect_kind = MASKED_STORE_NARROW
