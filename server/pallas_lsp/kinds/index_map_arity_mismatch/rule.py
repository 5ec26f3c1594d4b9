"""PAL620: an index map whose parameters do not match the grid (plus the scalar-prefetch refs)."""
from __future__ import annotations

from ...rules.launch_spec_rule import SpecDefectRule


class IndexMapArityMismatch(SpecDefectRule):
    """An index map takes another number of arguments than the launch passes it.

    `pl.pallas_call` traces every BlockSpec's index map with one int32 per grid axis, followed
    under `pltpu.PrefetchScalarGridSpec` by one ref per scalar-prefetch operand (no grid: no
    grid indices). A map with another number of positional parameters fails with Python's
    own arity `TypeError`, raised from `_IndexMapFunc.__call__` while the launch is traced, in
    every mode. Give the map one parameter per grid axis, then one per scalar-prefetch operand.
    """

    code = "PAL620"
    name = "index-map-arity-mismatch"
    record = "index-map-arity-mismatch"
    summary = "a BlockSpec index map whose parameters do not match the grid's axes (and scalar-prefetch refs)"
    label = "index map"

    def error(self, hit, defect) -> str:
        return f"TypeError: {defect.detail}"
