"""PAL310: under Mosaic GPU's Lane semantics, a whole load of a ref whose element count is not a
multiple of 128."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.gpu_launch import (WARPGROUP_SIZE, block_copies_aligned, first_lane_load_defect,
                                    first_mosaic_gpu_pipeline_defect, mosaic_gpu_pipelines_pallas_call)
from ...analysis.rule_api import Hit, Report
from ...analysis.shapes import kernel_ref_shapes
from ...rules.base import PythonRule
from ...rules.triton_launch_rule import dynamic_grid_entry


class MgpuLaneLoadNotWarpgroupMultiple(PythonRule):
    """A whole load of a ref whose element count is not a multiple of 128, under Lane semantics.

    Under `plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Lane)` (the default
    in jax 0.8-0.10) Mosaic GPU loads `ref[...]` into registers with a layout strided over the
    warpgroup's 128 threads (`FragmentedArray.load_strided`,
    `jax/experimental/mosaic/gpu/fragmented_array.py`), which needs a number of elements that is
    a multiple of 128: a 100-element or a (10, 30) ref raises. Use shapes with a multiple of 128
    elements (pad, or process a 128-multiple prefix). Warpgroup semantics (the default from jax
    0.11) infer layouts instead and fail differently, if at all. In jax 0.9 and 0.10 a GPU
    `pl.pallas_call` lowers through Mosaic GPU with Lane semantics by default, and its refs are
    its blocks (after its pipeline has copied each input block into SMEM, PAL312).
    """

    code = "PAL310"
    name = "mgpu-lane-load-not-warpgroup-multiple"
    record = "mgpu-lane-load-not-warpgroup-multiple"
    summary = "a whole ref load under Mosaic GPU Lane semantics of a ref whose element count is not a multiple of 128"
    label = "ref[...]"
    construct = "launch"
    apis = frozenset({api.PLGPU_KERNEL, api.PALLAS_CALL})
    # (verified on plgpu.kernel, and on pl.pallas_call where Mosaic GPU compiles it: jax 0.9-0.10)
    launch_apis = frozenset({api.PLGPU_KERNEL, api.PALLAS_CALL})
    modes = frozenset({Mode.MOSAIC_GPU})
    verified_on = ("0.12.0.1", "0.10.2")  # (plgpu.kernel's examples; pl.pallas_call's run under 0.10.2)

    def applies(self, hit: Hit) -> bool:
        ctx = hit.context
        if not (super().applies(hit) and ctx.lowered_for in (None, "cuda") and ctx.lowering_semantics == "lane"):
            return False
        return hit.launch.api.name != api.PALLAS_CALL or mosaic_gpu_pipelines_pallas_call(hit.release)

    def check(self, hit: Hit) -> Report | None:
        ev, launch = hit.ev, hit.launch
        if launch.api.name == api.PALLAS_CALL:
            earlier, known = first_mosaic_gpu_pipeline_defect(ev, launch, dynamic_grid_entry)
            if earlier is not None or not known or not block_copies_aligned(ev, launch):
                return None  # (its grid-mapping checks, then the pipeline's copies, come first: PAL66x, PAL312)
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
