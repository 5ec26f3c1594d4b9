"""PAL626: a BlockSpec index map that returns a float index."""
from __future__ import annotations

from ...rules.launch_spec_fixes import floor_divide_index
from ...rules.launch_spec_rule import SpecDefectRule


class IndexMapNonInteger(SpecDefectRule):
    """An index map returns a float where each index must be an integer scalar.

    While the launch is traced, each BlockSpec's index map is traced with one int32 per grid
    axis; every index it returns must be an int32/int64 scalar. True division (`i / 2`), a
    Python float in the arithmetic (`i * 1.0`) or `jnp.floor` of a float all give a float, and
    `BlockSpec.to_block_mapping` raises a `ValueError`, in every mode. Use integer arithmetic
    (`i // 2`) or cast (`.astype(jnp.int32)`).
    """

    code = "PAL626"
    name = "index-map-non-integer"
    record = "index-map-non-integer"
    summary = "a BlockSpec index map that returns a float index"
    label = "pl.BlockSpec"

    def error(self, hit, defect) -> str:
        return "ValueError: " + defect.detail

    def fix(self, hit, defect):
        return floor_divide_index(hit, defect)
