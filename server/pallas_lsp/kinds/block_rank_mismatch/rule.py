"""PAL622: a BlockSpec whose block shape has another rank than the array it maps."""
from __future__ import annotations

from ...rules.launch_spec_rule import SpecDefectRule


class BlockRankMismatch(SpecDefectRule):
    """A BlockSpec's block shape has another number of dims than its array.

    `BlockSpec.to_block_mapping` compares `len(block_shape)` with the rank of the operand (or
    `out_shape` entry) the spec maps while the launch is traced, in every mode. Give the block
    one dim per array dim (`None` for a squeezed one).
    """

    code = "PAL622"
    name = "block-rank-mismatch"
    record = "block-rank-mismatch"
    summary = "a BlockSpec whose block shape has another rank than the array it maps"
    label = "pl.BlockSpec"

    def error(self, hit, defect) -> str:
        return "ValueError: " + defect.detail
