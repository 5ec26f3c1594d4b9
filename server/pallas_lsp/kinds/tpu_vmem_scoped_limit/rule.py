"""PAL800: a compiled TPU pallas_call whose blocks, buffers and matmul results exceed the scoped VMEM limit."""
from __future__ import annotations

import ast

from ...analysis.findings import Fix, TextEdit
from ...analysis.rule_api import Hit, Report
from ...analysis.tpu_params import params_call, tpu_params_arg
from ...analysis.vmem_budget import MiB, ChipMemory, LaunchBudget, launch_budget, mib
from ...rules.vmem_budget_rule import V5E, BudgetRule, limit_words, parts_words

# A raised limit leaves this much room over the estimate (the estimate is within 10% of what the
# compiler states, on every launch a chip compiled), rounded up to whole MiB.
HEADROOM = 1.25


class TpuVmemScopedLimit(BudgetRule):
    """A launch that needs more scoped VMEM than its limit, compiled for TPU.

    Mosaic keeps every windowed block in VMEM, twice over by default when the grid has more
    than one step (double buffering), plus the float32 result of each matmul and 16-bit scratch,
    all in one scoped allocation that must fit `vmem_limit_bytes` (16 MiB by default on a TPU
    v5e; a block whose index map never moves is fetched once, one buffer). Over it, compiling
    fails with E1001 CompileTimeScopedVmemOom. Use smaller blocks, `pipeline_mode=pl.Buffered(1)`
    on an operand whose block moves but need not be prefetched, or raise
    `pltpu.CompilerParams(vmem_limit_bytes=...)` while it fits physical VMEM.
    """

    code = "PAL800"
    name = "tpu-vmem-scoped-limit"
    record = "tpu-vmem-scoped-limit"
    summary = "a compiled TPU pallas_call whose blocks x buffers, matmul results and scratch exceed scoped VMEM"
    fixable = True

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

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        # (edits are built with libcst, imported only when a fix is asked for)
        budget = launch_budget(hit.ev, hit.launch)
        if budget is None or not budget.complete or not all(p.certain for p in budget.parts):
            return []  # (a fix rests on the whole estimate, not only its settled parts)
        # (No pipeline_mode=pl.Buffered(1) fix: a block whose index map never moves already gets
        # one buffer on the chip, r3_sum_const_y; smaller blocks are the author's choice.)
        raised = self._raise_limit_fix(hit, budget)
        return [raised] if raised is not None else []

    @staticmethod
    def _raise_limit_fix(hit: Hit, budget: LaunchBudget) -> Fix | None:
        """``vmem_limit_bytes`` raised to the estimate with headroom, where that still fits the
        chip's physical VMEM beside what lives outside the scoped allocation."""
        from ...analysis.cst_edits import EditFailed
        from ...analysis.fixes import add_kwarg, value_in_module

        need = budget.vmem_scoped_bytes
        outside = sum(p.total for p in budget.parts if p.space == "vmem" and not p.scoped)
        limit_mib = -(-int(need * HEADROOM) // MiB)
        if limit_mib * MiB + outside > V5E.vmem:
            return None  # (more than physical VMEM: only smaller blocks help)
        value = f"{limit_mib} * 1024 * 1024"
        title = (f"Raise vmem_limit_bytes to {limit_mib} MiB (this launch needs {mib(need)}; "
                 f"TPU v5e has {mib(V5E.vmem)})")
        ev, launch = hit.ev, hit.launch
        given = tpu_params_arg(ev, launch, "vmem_limit_bytes")
        try:
            if given is not None:
                node, scope, _ = given.where
                if hit.index.path_of(scope) != hit.index.path:
                    return None
                edits: tuple[TextEdit, ...] = (TextEdit(hit.span_of(node, scope), value),)
            elif "compiler_params" in launch.options:
                got = params_call(ev, launch)
                if got is None or got[1] != "tpu" or not isinstance(got[0].site.node, ast.Call):
                    return None  # (params built in a way the edit cannot reach: a dict, a variable's call)
                site = got[0].site
                if hit.index.path_of(site.scope) != hit.index.path:
                    return None
                edits = (add_kwarg(hit.index, site.node, site.scope, "vmem_limit_bytes", value),)
            else:
                params, imports = value_in_module(
                    hit.index, f"{{jax.experimental.pallas.tpu}}.CompilerParams(vmem_limit_bytes={value})")
                call = launch.site
                edits = (add_kwarg(hit.index, call.node, call.scope, "compiler_params", params), *imports)
        except EditFailed:
            return None
        # (safe: the same kernel and results; only the compiler's allocation limit changes)
        return Fix(title, edits, safe=True)
