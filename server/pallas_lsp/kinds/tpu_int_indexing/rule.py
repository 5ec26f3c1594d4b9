"""PAL723: a compiled TPU kernel indexes a Ref with an index array."""
from __future__ import annotations

from ...analysis.ref_access import INT_INDEXING
from ...rules.ref_access_rule import RefAccessRule


class TpuIntIndexing(RefAccessRule):
    """A kernel compiled for TPU gathers or scatters through a Ref with an array of indices.

    The Mosaic TPU lowering turns a Ref index into start, size and stride per dim; an index
    that is an array (`x_ref[jnp.arange(8) * 2]`, `x_ref[:, 127 - lax.iota(jnp.int32, 128)]`)
    has none, and `_canonicalize_transforms_to_indexer` raises `ValueError: Cannot do int
    indexing on TPU` for reads and writes alike. Scalars (the grid position, a loop index, a
    value read from SMEM) and `pl.ds` windows are fine. Read the window with a slice or
    `pl.ds(start, size, stride)`, or loop over the indices with scalar reads.
    """

    code = "PAL723"
    name = "tpu-int-indexing"
    record = "tpu-int-indexing"
    summary = "a compiled TPU kernel indexes a Ref with an index array"
    defect_kind = INT_INDEXING
