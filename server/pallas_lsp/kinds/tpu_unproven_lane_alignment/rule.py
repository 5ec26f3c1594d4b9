"""PAL726: a dynamic lane start in a compiled TPU kernel that Mosaic cannot prove a multiple of 128."""
from __future__ import annotations

from ...analysis.findings import Fix
from ...analysis.ref_access import UNPROVEN_LANE_ALIGNMENT, Defect
from ...analysis.rule_api import Hit
from ...rules.ref_access_rule import RefAccessRule, wrap_multiple_of


class TpuUnprovenLaneAlignment(RefAccessRule):
    """A kernel compiled for TPU reads or writes a VMEM Ref at a lane offset computed at run time.

    A window `x_ref[:, pl.ds(start, 128)]` whose start is traced (the grid position, a loop
    index, a value read from SMEM) compiles only where Mosaic can prove the start a multiple of
    128 lanes: constants, `pl.multiple_of(start, 128)`, products with such a factor, and sums,
    differences, remainders and minima of proven terms. Anything else fails when libtpu's
    Mosaic compiles the kernel: `E2003: CompileTimeMosaicUnprovenMemoryAccessAlignment: cannot
    statically prove that index in dimension 1 is a multiple of 128` (no raise site in jax's
    Python source; lowering on a CPU does not show it). Where the code shows the start is a
    multiple of 128 in a form Mosaic does not follow (`i << 7`), wrapping it in
    `pl.multiple_of(start, 128)` states it; a start that is not such a multiple (`i * 64`) needs
    another layout (aligned windows, or a shift of the loaded value with `pltpu.roll`).
    """

    code = "PAL726"
    name = "tpu-unproven-lane-alignment"
    record = "tpu-unproven-lane-alignment"
    summary = "a dynamic lane start in a compiled TPU kernel that Mosaic cannot prove a multiple of 128"
    defect_kind = UNPROVEN_LANE_ALIGNMENT
    fix_title = "State the lane start's alignment with `pl.multiple_of(start, 128)`"

    def fixable(self, d: Defect) -> bool:
        return d.start is not None

    def build_fix(self, hit: Hit, d: Defect) -> Fix | None:
        return wrap_multiple_of(hit, d, self.fix_title)
