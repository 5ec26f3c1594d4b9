"""PAL310: under Mosaic GPU's Lane semantics, a whole load of a ref whose element count is not a
multiple of 128."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.gpu_launch import WARPGROUP_SIZE, first_lane_load_defect
from ...analysis.rule_api import Hit, Report
from ...analysis.shapes import kernel_ref_shapes
from ...rules.base import PythonRule


class MgpuLaneLoadNotWarpgroupMultiple(PythonRule):
    """A whole load of a ref whose element count is not a multiple of 128, under Lane semantics.

    Under `plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Lane)` (the default
    in jax 0.8-0.10) Mosaic GPU loads `ref[...]` into registers with a layout strided over the
    warpgroup's 128 threads (`FragmentedArray.load_strided`,
    `jax/experimental/mosaic/gpu/fragmented_array.py`), which needs a number of elements that is
    a multiple of 128: a 100-element or a (10, 30) ref raises. Use shapes with a multiple of 128
    elements (pad, or process a 128-multiple prefix). Warpgroup semantics (the default from jax
    0.11) infer layouts instead and fail differently, if at all.
    """

    code = "PAL310"
    name = "mgpu-lane-load-not-warpgroup-multiple"
    record = "mgpu-lane-load-not-warpgroup-multiple"
    summary = "a whole ref load under Mosaic GPU Lane semantics of a ref whose element count is not a multiple of 128"
    label = "ref[...]"
    construct = "launch"
    apis = frozenset({api.PLGPU_KERNEL})
    launch_apis = frozenset({api.PLGPU_KERNEL})  # (verified on plgpu.kernel)
    modes = frozenset({Mode.MOSAIC_GPU})

    def applies(self, hit: Hit) -> bool:
        ctx = hit.context
        return super().applies(hit) and ctx.lowered_for in (None, "cuda") and ctx.lowering_semantics == "lane"

    def check(self, hit: Hit) -> Report | None:
        ev, launch = hit.ev, hit.launch
        found = first_lane_load_defect(ev, launch, kernel_ref_shapes(ev, launch))
        if found is None:
            return None
        kernel = launch.kernel
        size = 1
        for d in found.shape:
            size *= d
        memref = "memref<" + "x".join(map(str, found.shape)) + "x...>"
        error = (f"ValueError: {memref} must have a number of elements that is a multiple of {WARPGROUP_SIZE} "
                 f"(got {size})")
        shape = ", ".join(map(str, found.shape)) + ("," if len(found.shape) == 1 else "")
        headline = (f"`{found.param}[...]` loads a ({shape}) ref, {size} elements: under Lane semantics a load "
                    f"needs a multiple of {WARPGROUP_SIZE} elements (one warpgroup)")
        span = ev.other(kernel).index.span(found.load, kernel)
        return Report(error, headline, span=span, key=id(found.load), fixable=False)
