"""PAL725: a strided VMEM access Mosaic refuses (a lane stride, or a strided read of a Ref not 128 lanes wide)."""
from __future__ import annotations

from ...analysis.ref_access import STRIDED_LANES
from ...rules.ref_access_rule import RefAccessRule


class TpuStridedLaneAccess(RefAccessRule):
    """A kernel compiled for TPU makes a strided VMEM access that Mosaic in libtpu refuses.

    The Mosaic TPU lowering emits `tpu.strided_load` / `tpu.strided_store` for a strided
    window; Mosaic in libtpu takes strides on the leading and sublane dims but not on the last
    dim: `Not Implemented: Stride on last dim is not 1` (a MosaicError when the kernel is
    compiled on the chip; lowering on a CPU does not show it). There is no raise site in jax's
    Python source: the message comes from Mosaic inside libtpu. Read the contiguous lanes and
    rearrange the loaded value, or lay the data out so the stride falls on a leading dim.
    """

    code = "PAL725"
    name = "tpu-strided-lane-access"
    record = "tpu-strided-lane-access"
    summary = ("a strided VMEM access Mosaic refuses: a stride on the lane dim, or a strided read of a Ref "
               "whose last dim is not 128")
    defect_kind = STRIDED_LANES
