"""PAL621: a BlockSpec index map that returns another number of indices than its block has dims."""
from __future__ import annotations

from ...rules.launch_spec_rule import SpecDefectRule


class IndexMapResultRank(SpecDefectRule):
    """An index map returns another number of indices than its block has dims.

    While the launch is traced, each BlockSpec's index map is traced and must return one index
    per block dim; a `None` / `pl.Squeezed()` dim still needs its index. Otherwise
    `BlockSpec.to_block_mapping` raises a `ValueError`, in every mode. Return one index per
    block dim.
    """

    code = "PAL621"
    name = "index-map-result-rank"
    record = "index-map-result-rank"
    summary = "a BlockSpec index map that returns another number of indices than its block has dims"
    label = "pl.BlockSpec"

    def error(self, hit, defect) -> str:
        return "ValueError: " + defect.detail
