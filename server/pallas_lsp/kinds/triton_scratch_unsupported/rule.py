"""PAL661: ``scratch_shapes`` on a ``pl.pallas_call`` compiled by Triton."""
from __future__ import annotations

from ...analysis.gpu_launch import SCRATCH, TritonDefect
from ...analysis.rule_api import Hit
from ...rules.triton_launch_rule import TritonLaunchRule


class TritonScratchUnsupported(TritonLaunchRule):
    """Scratch memory on a `pl.pallas_call` compiled by Triton.

    Pallas's Triton backend has no scratch memory: `lower_jaxpr_to_triton_module`
    (`jax/_src/pallas/triton/lowering.py`) raises as soon as the kernel has scratch operands,
    whatever their memory space (`pltpu.VMEM`, `plgpu.SMEM`) or where they are given
    (`scratch_shapes=` of the launch or of its `pl.GridSpec`). It raises after the dynamic-grid
    and scalar-prefetch checks. Keep temporaries as values inside the kernel (an accumulator as a
    local array), or use Mosaic GPU (`plgpu.CompilerParams`, `plgpu.kernel`), which has scratch.
    Interpret mode and TPU run scratch.
    """

    code = "PAL661"
    name = "triton-scratch-unsupported"
    record = "triton-scratch-unsupported"
    summary = "scratch_shapes on a pl.pallas_call compiled by Triton"
    label = "scratch_shapes"
    defect_kind = SCRATCH

    def error(self, defect: TritonDefect) -> str:
        return "NotImplementedError: scratch memory not implemented in the Triton backend"

    def headline(self, hit: Hit, defect: TritonDefect) -> str:
        return (f"`scratch_shapes` gives the kernel {defect.detail}, and Triton has no scratch memory: "
                f"keep temporaries as values in the kernel")
