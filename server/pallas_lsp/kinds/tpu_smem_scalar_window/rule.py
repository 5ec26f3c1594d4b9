"""PAL707: a 0-d input in SMEM under a grid, compiled for TPU (the chip has no scalar windows)."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.launch_specs import first_spec_defect, read_launch_specs
from ...analysis.rule_api import Hit, Report
from ...analysis.tpu_blocks import first_mapping_defect, tpu_blocks
from ...analysis.vmem_budget import grid_dims
from ...rules.base import PythonRule
from ...rules.tpu_block_rule import lowered_by_mosaic_tpu


class TpuSmemScalarWindow(PythonRule):
    """A scalar input in SMEM under a grid does not compile for TPU.

    `pl.BlockSpec(memory_space=pltpu.SMEM)` for a 0-d operand passes JAX's block checks (a
    whole-array SMEM block is skipped), so lowering for TPU on a CPU succeeds; under a grid
    the pipeline gives every input a window per step, and the TPU compiler in libtpu refuses a
    rank-0 one: "Failed to set window params for input N: Scalar windows not implemented"
    (seen on a TPU v5e, jax 0.10.2). A grid-less launch compiles it. Pass the scalar as a
    (1,) array in SMEM, read as `s_ref[0]`, or as a scalar-prefetch operand.
    """

    code = "PAL707"
    name = "tpu-smem-scalar-window"
    record = "tpu-smem-scalar-window"
    summary = "a 0-d input given an SMEM BlockSpec under a grid, compiled for TPU (no scalar windows on the chip)"
    label = "pl.BlockSpec"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.TPU})
    launch_apis = frozenset({api.PALLAS_CALL})

    def applies(self, hit: Hit) -> bool:
        return super().applies(hit) and lowered_by_mosaic_tpu(hit)

    def check(self, hit: Hit) -> Report | None:
        ev, launch = hit.ev, hit.launch
        if first_spec_defect(ev, launch) is not None or first_mapping_defect(ev, launch) is not None:
            return None  # (JAX's own checks fail first)
        specs = read_launch_specs(ev, launch)
        if specs is None:
            return None
        grid = grid_dims(ev, specs.grid)
        if not grid:
            return None  # (no grid, or one not known: a grid-less 0-d SMEM input compiled)
        for position, block in enumerate(tpu_blocks(ev, launch) or []):
            if block.entry is None or block.entry.role != "in" or block.memory_space != "smem" \
                    or block.array != () or block.has_block_shape:
                continue
            node, scope, _ = block.where
            index = block.entry.position + (specs.num_scalar_prefetch or 0)
            error = ("JaxRuntimeError: UNIMPLEMENTED: Mosaic failed to compile TPU kernel: Failed to set window "
                     f"params for input {index}: Scalar windows not implemented.")
            headline = (f"{block.origin} is a 0-d array in SMEM under the grid {tuple(grid)}: the TPU compiler has "
                        "no window for a scalar (pass it as a (1,) array read as s_ref[0], or prefetch it)")
            grid_where = specs.grid
            related = (Related(hit.span_of(grid_where[0], grid_where[1]), "the grid"),) if grid_where else ()
            return Report(error, headline, span=hit.span_of(node, scope), key=id(node), related=related,
                          fixable=False)
        return None
