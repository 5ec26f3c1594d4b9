"""PAL628: a BlockSpec index map that reads a jnp array from outside it."""
from __future__ import annotations

from ...rules.launch_spec_rule import SpecDefectRule


class IndexMapCapturesConstants(SpecDefectRule):
    """An index map reads a `jnp` array bound outside it (a lookup table).

    While the launch is traced, each BlockSpec's index map is traced; an array it closes over
    (a module-level `jnp.array`, a 0-d `jnp.int32(...)`) becomes a constant of its jaxpr, and
    `BlockSpec.to_block_mapping` raises a `ValueError`, in every mode. Pass the table as a
    scalar-prefetch operand (`pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1)`) and index
    the ref the map receives.
    """

    code = "PAL628"
    name = "index-map-captures-constants"
    record = "index-map-captures-constants"
    summary = "a BlockSpec index map that reads a jnp array from outside it"
    label = "pl.BlockSpec"

    def error(self, hit, defect) -> str:
        return "ValueError: " + defect.detail
