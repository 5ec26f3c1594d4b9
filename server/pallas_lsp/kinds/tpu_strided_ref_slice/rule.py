"""PAL724: a strided Ref view (.at[pl.ds(..., stride=k)]) that the TPU lowering must slice."""
from __future__ import annotations

from ...analysis.ref_access import STRIDED_REF_SLICE
from ...rules.ref_access_rule import RefAccessRule


class TpuStridedRefSlice(RefAccessRule):
    """A kernel compiled for TPU takes a strided view of a Ref and uses it as a Ref.

    `x_ref.at[pl.ds(0, 8, stride=2)]` is a view; when the view is handed to a DMA or indexed
    again (`view[0:4]`), the Mosaic TPU lowering slices the memref first (`_slice_memref`),
    which takes only unit strides: `NotImplementedError: Strided slices of references are
    unsupported.` A strided view read or written whole (`view[...]`) is the same as indexing
    the Ref with the strided window and lowers as a strided load or store. Index the Ref with
    the strided window in one subscript, or copy a contiguous window and pick the rows in VMEM.
    """

    code = "PAL724"
    name = "tpu-strided-ref-slice"
    record = "tpu-strided-ref-slice"
    summary = "a strided Ref view (.at[pl.ds(..., stride=k)]) that the TPU lowering must slice"
    defect_kind = STRIDED_REF_SLICE
