"""PAL623: in_specs whose pytree differs from the operands' (count or nesting)."""
from __future__ import annotations

from ...rules.launch_spec_rule import SpecDefectRule


class InSpecsStructureMismatch(SpecDefectRule):
    """`in_specs` is not nested like the operands.

    `get_grid_mapping` compares the pytree of `in_specs` with the operands' (those after the
    scalar-prefetch operands) while the launch is traced, in every mode. Give one spec per
    operand, nested like the operands.
    """

    code = "PAL623"
    name = "in-specs-structure-mismatch"
    record = "in-specs-structure-mismatch"
    summary = "in_specs whose pytree differs from the operands' (count or nesting)"
    label = "pl.BlockSpec"

    def error(self, hit, defect) -> str:
        return "ValueError: " + defect.detail
