"""PAL649: a Mosaic GPU memory space (plgpu.SMEM, plgpu.GMEM) in a pallas_call lowered for TPU."""
from __future__ import annotations

from ...analysis.findings import Related
from ...analysis.launch_specs import first_spec_defect, read_launch_specs
from ...analysis.rule_api import Hit, Report
from ...analysis.tpu_blocks import FOREIGN_SPACE, TpuBlock, first_mapping_defect, foreign_scratch
from ...analysis.tpu_params import sequence_length, tpu_params_arg
from ...rules.tpu_block_rule import TpuBlockTilingRule


class TpuForeignMemorySpace(TpuBlockTilingRule):
    """A Mosaic GPU memory space in a BlockSpec or scratch shape, compiled for TPU.

    The Mosaic TPU lowering maps every memory space to a TPU one
    (`memory_space_to_tpu_memory_space`, `jax/_src/pallas/mosaic/core.py`); Mosaic GPU's
    `plgpu.SMEM` / `plgpu.GMEM` have no case there and raise "Invalid memory space". A
    BlockSpec's space is mapped while the block mappings are checked, a scratch shape's when
    the kernel's arguments are typed. `interpret=True` runs it. Use `pltpu.SMEM`,
    `pltpu.VMEM` or `pl.ANY` (the names from `jax.experimental.pallas.tpu`).
    """

    code = "PAL649"
    name = "tpu-foreign-memory-space"
    record = "tpu-foreign-memory-space"
    summary = "a Mosaic GPU memory space (plgpu.SMEM, plgpu.GMEM) in a BlockSpec or scratch_shapes, lowered for TPU"
    label = "memory space"
    defect_kind = FOREIGN_SPACE

    def error(self, block: TpuBlock) -> str:
        return "ValueError: Invalid memory space: <MemorySpace.GMEM: 'gmem'>"

    def check(self, hit: Hit) -> Report | None:
        got = super().check(hit)
        if got is not None:
            return got
        ev, launch = hit.ev, hit.launch
        item = foreign_scratch(ev, launch)
        if item is None or first_spec_defect(ev, launch) is not None or first_mapping_defect(ev, launch) is not None:
            return None  # (tracing, or a block mapping, fails first)
        specs = read_launch_specs(ev, launch)
        semantics = tpu_params_arg(ev, launch, "dimension_semantics")
        if semantics is not None and specs is not None and specs.grid_rank is not None:
            with ev.within(semantics.params.frames):
                length = sequence_length(ev, semantics.where)
            if length is not None and length != specs.grid_rank:
                return None  # (the grid mapping's length check comes before the scratch types)
        node, scope, _ = item
        span = ev.index.span(node, scope)
        code = ev.index.code_of(node, scope)
        related = []
        kernel = launch.kernel
        if kernel is not None and kernel.node is not None and kernel.kind == "function":
            related.append(Related(ev.index.span(kernel.node, kernel.parent), "the kernel"))
        headline = (f"Scratch shape `{code}` is allocated in a Mosaic GPU memory space: the Mosaic TPU lowering has "
                    "no TPU memory space for it (use pltpu.SMEM / pltpu.VMEM)")
        return Report("ValueError: Invalid memory space: <MemorySpace.SMEM: 'smem'>", headline, span=span,
                      key=id(node), related=tuple(related), fixable=False)
