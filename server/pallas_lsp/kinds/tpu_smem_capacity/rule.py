"""PAL802: a compiled TPU pallas_call whose scalar-prefetch operands, SMEM blocks and SMEM scratch fill SMEM."""
from __future__ import annotations

from ...analysis.vmem_budget import ChipMemory, LaunchBudget, mib
from ...rules.vmem_budget_rule import BudgetRule, parts_words


class TpuSmemCapacity(BudgetRule):
    """A launch whose SMEM arrays do not fit the chip's SMEM, compiled for TPU.

    Scalar-prefetch operands, blocks in `pltpu.SMEM` and SMEM scratch all live in the core's
    SMEM (1 MiB on a TPU v5e), each 1-D array rounded up to 128 four-byte words, beside a few
    bytes the compiler keeps there itself. At 1 MiB or more compiling fails with
    RESOURCE_EXHAUSTED. Keep large tables in HBM (`pl.ANY`) or VMEM and read them in blocks.
    """

    code = "PAL802"
    name = "tpu-smem-capacity"
    record = "tpu-smem-capacity"
    summary = "a compiled TPU pallas_call whose scalar-prefetch operands, SMEM blocks and scratch fill the chip's SMEM"

    def over(self, budget: LaunchBudget, chip: ChipMemory):
        need = budget.smem_bytes
        if need < chip.smem:
            return None
        biggest = budget.biggest("smem")
        error = (f"JaxRuntimeError: RESOURCE_EXHAUSTED: Allocation (size={biggest[0].total}) would exceed memory "
                 f"(size={chip.smem}) ... space=smem")
        headline = (f"This launch keeps {mib(need)} in SMEM ({parts_words(biggest)}); a TPU {chip.generation} core "
                    f"has {mib(chip.smem)}")
        return error, headline, biggest
