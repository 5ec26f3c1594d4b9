"""PAL662: ``PrefetchScalarGridSpec(num_scalar_prefetch > 0)`` on a ``pl.pallas_call`` compiled
by Triton."""
from __future__ import annotations

from ...analysis.gpu_launch import SCALAR_PREFETCH, TritonDefect
from ...analysis.rule_api import Hit
from ...rules.triton_launch_rule import TritonLaunchRule


class TritonScalarPrefetchUnsupported(TritonLaunchRule):
    """Scalar-prefetch operands on a `pl.pallas_call` compiled by Triton.

    `pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=n)` with `n > 0` gives the grid mapping
    index operands, and Pallas's Triton lowering (`pallas_call_lowering`,
    `jax/_src/pallas/triton/pallas_call_registration.py`) refuses them before it lowers the kernel
    (only a dynamic grid is refused earlier). Pass the indices as an ordinary operand with a
    whole-array BlockSpec and index it in the kernel (`ids_ref[pl.program_id(0)]`); the index maps
    can no longer read it, so the kernel selects its rows itself. In jax 0.9-0.10 a GPU
    pallas_call without Triton params is compiled by Mosaic GPU, which refuses them as well ("Scalar
    prefetch not supported in Mosaic GPU lowering.").
    """

    code = "PAL662"
    name = "triton-scalar-prefetch-unsupported"
    record = "triton-scalar-prefetch-unsupported"
    summary = "PrefetchScalarGridSpec(num_scalar_prefetch > 0) on a pl.pallas_call compiled by Triton"
    label = "num_scalar_prefetch"
    defect_kind = SCALAR_PREFETCH
    mosaic_error = "Scalar prefetch not supported in Mosaic GPU lowering."
    verified_on = ("0.12.0.1", "0.10.2")  # (the Mosaic GPU examples run under jax 0.10.2)

    def error(self, defect: TritonDefect) -> str:
        return "NotImplementedError: scalar prefetch not implemented in the Triton backend"

    def headline(self, hit: Hit, defect: TritonDefect) -> str:
        return (f"`num_scalar_prefetch` gives the grid {defect.detail}, which {self.backend_words(hit)} does not "
                f"implement: pass them as an ordinary operand and index it in the kernel")
