"""PAL610: a pallas_call scratch_shapes leaf that is no memory-space allocation."""
from __future__ import annotations

import ast

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.launch_signature import invalid_scratch
from ...analysis.rule_api import Hit, Report
from ...rules.base import PythonRule


class ScratchShapeInvalid(PythonRule):
    """`scratch_shapes=` holds a `ShapeDtypeStruct`, a `(shape, dtype)` pair or a dtype.

    A scratch buffer is described by a memory-space allocation (`pltpu.VMEM(shape, dtype)`,
    `pltpu.SMEM(...)`, `plgpu.SMEM(...)`, a semaphore type). `get_grid_mapping`
    (jax/_src/pallas/core.py) flattens `scratch_shapes` and asks each leaf for its Ref type:
    `AttributeError: 'ShapeDtypeStruct' object has no attribute 'get_ref_aval'` (a `(shape,
    dtype)` pair flattens into ints: `'int' object ...`). Raised when the call is traced, in
    every mode. Use the backend's allocation, e.g. `pltpu.VMEM(shape, dtype)` on TPU.
    """

    code = "PAL610"
    name = "scratch-shape-invalid"
    record = "scratch-shape-invalid"
    summary = "pallas_call scratch_shapes leaf that is a ShapeDtypeStruct, a (shape, dtype) pair or a dtype"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    label = "scratch_shapes="
    modes = frozenset(Mode)  # (raised when the call is traced: before any backend is involved)

    def applies(self, hit: Hit) -> bool:
        return True

    def check(self, hit: Hit) -> Report | None:
        bad = invalid_scratch(hit.ev, hit.launch)
        if bad is None:
            return None
        leaf = ast.unparse(bad.leaf)
        related = (Related(hit.span_of(bad.leaf, bad.scope), "this scratch entry is no allocation"),
                   Related(hit.span_of(hit.launch.site.node, hit.launch.site.scope), "the `pallas_call`"))
        headline = (f"scratch entry `{leaf if len(leaf) <= 40 else leaf[:37] + '...'}` is not a memory-space "
                    "allocation: describe scratch with the backend's, e.g. `pltpu.VMEM(shape, dtype)`")
        return Report(f"AttributeError: {bad.type_words} has no attribute 'get_ref_aval'", headline,
                      span=hit.span_of(bad.node, bad.scope), key=("scratch-shape",), related=related,
                      fixable=False)


__all__ = ["ScratchShapeInvalid"]
