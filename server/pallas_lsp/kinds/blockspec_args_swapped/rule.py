"""PAL627: pl.BlockSpec(index_map, block_shape): the arguments in the old order."""
from __future__ import annotations

from ...rules.launch_spec_fixes import swap_block_spec_arguments
from ...rules.launch_spec_rule import SpecDefectRule


class BlockSpecArgsSwapped(SpecDefectRule):
    """`pl.BlockSpec` is given its index map as the block shape.

    `pl.BlockSpec` takes `(block_shape, index_map)`; with the index map first it lands in
    `block_shape`, which is iterated when the launch is traced (`TypeError: 'function' object is
    not iterable`), in every mode. Swap the arguments or pass them by keyword.
    """

    code = "PAL627"
    name = "blockspec-args-swapped"
    record = "blockspec-args-swapped"
    summary = "pl.BlockSpec(index_map, block_shape): the arguments in the old order"
    label = "pl.BlockSpec"

    def error(self, hit, defect) -> str:
        return "TypeError: " + defect.detail

    def fix(self, hit, defect):
        return swap_block_spec_arguments(hit, defect)
