"""PAL660: a block whose element count is not a power of 2, loaded or stored whole in a
``pl.pallas_call`` kernel compiled by Triton."""
from __future__ import annotations

from ...analysis.findings import Related
from ...analysis.gpu_launch import first_non_power_of_two_block, first_triton_defect
from ...analysis.rule_api import Hit, Report
from ...analysis.shapes import kernel_ref_shapes
from ...rules.triton_launch_rule import TritonLaunchRule, dynamic_grid_entry


class TritonBlockPowerOfTwo(TritonLaunchRule):
    """A block of a size that is not a power of 2, loaded or stored whole under Triton.

    Pallas's Triton lowering requires every operation's array arguments and results to hold a
    power-of-2 number of elements (`_check_tensor_size`, `jax/_src/pallas/triton/lowering.py`):
    a whole load `x_ref[...]` (or store) of a ref whose block is `(12, 256)` or, with no
    BlockSpecs, a whole array of 100 elements raises at the first such operation. `None` block
    dimensions count as 1. Power-of-2 blocks over a ragged array are fine (the edge is masked):
    use them with a `pl.cdiv` grid. Interpret mode and the other backends do not ask it.
    """

    code = "PAL660"
    name = "triton-block-power-of-two"
    record = "triton-block-power-of-two"
    summary = "a block with a non-power-of-2 number of elements, loaded or stored whole under Triton"
    label = "pl.BlockSpec"

    def check(self, hit: Hit) -> Report | None:
        ev, launch = hit.ev, hit.launch
        if first_triton_defect(ev, launch, dynamic_grid_entry) is not None:
            return None  # (the grid-mapping checks come first)
        block = first_non_power_of_two_block(ev, launch, kernel_ref_shapes(ev, launch))
        if block is None:
            return None
        node, scope, _ = block.where
        span = hit.span_of(node, scope)
        size = 1
        for d in block.shape:
            size *= d
        shape = "(" + ", ".join(map(str, block.shape)) + ("," if len(block.shape) == 1 else "") + ")"
        kernel = launch.kernel
        related = (Related(ev.other(kernel).index.span(block.access, kernel),
                           f"`{block.param}` is loaded or stored whole here: an array of shape {shape}"),)
        what = "the whole array" if node is launch.site.node else "the block"  # (no BlockSpecs: the launch)
        headline = (f"`{block.param}` gets {what} {shape}, {size} elements, not a power of 2: the Triton lowering "
                    f"needs power-of-2 sizes (use a power-of-2 block and a pl.cdiv grid)")
        error = ("ValueError: The Pallas Triton lowering currently requires that all operations have array arguments "
                 f"and results whose size is a power of 2. Encountered an array of shape {shape}")
        return Report(error, headline, span=span, key=id(node), related=related, fixable=False)
