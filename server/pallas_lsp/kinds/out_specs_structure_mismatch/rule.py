"""PAL625: out_specs whose pytree differs from out_shape's."""
from __future__ import annotations

from ...rules.launch_spec_rule import SpecDefectRule


class OutSpecsStructureMismatch(SpecDefectRule):
    """`out_specs` is not nested like `out_shape`.

    `get_grid_mapping` compares the pytree of `out_specs` with `out_shape`'s (a top-level list
    counts as a tuple) while the launch is traced, in every mode. Match `out_shape`'s structure.
    """

    code = "PAL625"
    name = "out-specs-structure-mismatch"
    record = "out-specs-structure-mismatch"
    summary = "out_specs whose pytree differs from out_shape's"
    label = "pl.BlockSpec"

    def error(self, hit, defect) -> str:
        return "ValueError: " + defect.detail
