"""PAL801: a compiled TPU pallas_call whose VMEM scratch or blocks exceed the chip's physical VMEM."""
from __future__ import annotations

from ...analysis.vmem_budget import ChipMemory, LaunchBudget, mib
from ...rules.vmem_budget_rule import BudgetRule, parts_words


class TpuVmemCapacity(BudgetRule):
    """A launch that needs more VMEM than the chip has, compiled for TPU.

    A TPU v5e core has 128 MiB of VMEM. A 32-bit VMEM scratch buffer is allocated outside the
    scoped limit but must fit physical VMEM; with `vmem_limit_bytes` raised above physical VMEM,
    blocks over it fail on capacity too. Compiling fails with RESOURCE_EXHAUSTED ("Allocation ...
    would exceed memory (size=134217728)" or "Used ... of 128.00M vmem"). Keep large data in HBM
    (`memory_space=pl.ANY`) and copy the part needed with `pltpu.make_async_copy`, or use
    smaller blocks.
    """

    code = "PAL801"
    name = "tpu-vmem-capacity"
    record = "tpu-vmem-capacity"
    summary = "a compiled TPU pallas_call whose VMEM scratch or blocks exceed the chip's physical VMEM"

    def over(self, budget: LaunchBudget, chip: ChipMemory):
        scratch = budget.largest_unscoped
        if scratch is not None and scratch.total > chip.vmem:
            error = (f"JaxRuntimeError: RESOURCE_EXHAUSTED: Allocation (size={scratch.total}) would exceed memory "
                     f"(size={chip.vmem}) ... space=vmem ... tag = 'scratch operand'")
            headline = (f"The VMEM scratch `{scratch.name}` takes {mib(scratch.total)}, more than the "
                        f"{mib(chip.vmem)} of VMEM a TPU {chip.generation} core has")
            return error, headline, [scratch]
        need = budget.vmem_scoped_sure_bytes
        if budget.limit(chip) > chip.vmem and need > chip.vmem:
            biggest = budget.biggest()
            error = (f"JaxRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in "
                     f"memory space vmem. Used {mib(need)} of {mib(chip.vmem)} vmem.")
            headline = (f"This launch needs {mib(need)} of VMEM ({parts_words(biggest)}), more than the "
                        f"{mib(chip.vmem)} a TPU {chip.generation} core has (vmem_limit_bytes above it does not help)")
            return error, headline, biggest
        return None
