"""PAL800: a compiled TPU pallas_call whose blocks, buffers and matmul results exceed the scoped VMEM limit."""
from __future__ import annotations

from ...analysis.vmem_budget import ChipMemory, LaunchBudget, mib
from ...rules.vmem_budget_rule import BudgetRule, limit_words, parts_words


class TpuVmemScopedLimit(BudgetRule):
    """A launch that needs more scoped VMEM than its limit, compiled for TPU.

    Mosaic keeps every windowed block in VMEM, twice over by default when the grid has more
    than one step (double buffering), plus the float32 result of each matmul and 16-bit scratch,
    all in one scoped allocation that must fit `vmem_limit_bytes` (16 MiB by default on a TPU
    v5e). Over it, compiling fails with E1001 CompileTimeScopedVmemOom. Use smaller blocks,
    `pipeline_mode=pl.Buffered(1)` on an operand whose block does not move, or raise
    `pltpu.CompilerParams(vmem_limit_bytes=...)` while it fits physical VMEM.
    """

    code = "PAL800"
    name = "tpu-vmem-scoped-limit"
    record = "tpu-vmem-scoped-limit"
    summary = "a compiled TPU pallas_call whose blocks x buffers, matmul results and scratch exceed scoped VMEM"

    def over(self, budget: LaunchBudget, chip: ChipMemory):
        limit = budget.limit(chip)
        need = budget.vmem_scoped_sure_bytes
        if limit > chip.vmem or need <= limit:
            return None  # (a limit above physical VMEM fails on capacity instead: PAL801)
        biggest = budget.biggest()
        error = ("JaxRuntimeError: RESOURCE_EXHAUSTED: E1001: CompileTimeScopedVmemOom: Ran out of memory in "
                 f"memory space vmem ... Scoped allocation with size {mib(need)} and limit {mib(limit)} exceeded "
                 "scoped vmem limit")
        headline = (f"This launch needs {mib(need)} of scoped VMEM ({parts_words(biggest)}), more than "
                    f"{limit_words(budget, chip)}")
        return error, headline, biggest
