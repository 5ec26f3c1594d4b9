"""The shared part of the memory-budget rules (PAL800-PAL802): each reads the launch's budget
(analysis/vmem_budget.py, calibrated on a TPU v5e) and reports the one limit of its kind that
the parts the chip settled surely exceed. Only TPU v5e's limits are known (its chip reported
them); the records' ``chips`` field keeps these findings off other generations."""
from __future__ import annotations

from ..analysis import api
from ..analysis.contexts import Mode
from ..analysis.findings import Related
from ..analysis.rule_api import Hit, Report
from ..analysis.vmem_budget import CHIP_MEMORY, BudgetPart, ChipMemory, LaunchBudget, launch_budget, mib
from .base import PythonRule

V5E = CHIP_MEMORY["v5e"]


class BudgetRule(PythonRule):
    """A compiled TPU ``pallas_call`` whose memory need surely exceeds one limit of the chip."""

    label = "pl.pallas_call"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.TPU})  # (interpret mode allocates nothing on a chip)
    launch_apis = frozenset({api.PALLAS_CALL})

    def applies(self, hit: Hit) -> bool:
        return super().applies(hit) and hit.context.lowered_for in (None, "tpu")

    def over(self, budget: LaunchBudget, chip: ChipMemory) -> tuple[str, str, list[BudgetPart]] | None:
        """(the error as the chip words it, the headline, the parts to point at), or None."""
        raise NotImplementedError

    def check(self, hit: Hit) -> Report | None:
        budget = launch_budget(hit.ev, hit.launch)
        if budget is None:
            return None
        verdict = self.over(budget, V5E)
        if verdict is None:
            return None
        error, headline, parts = verdict
        ev = hit.ev
        # Underline the biggest part's declaration (the BlockSpec, scratch entry or operand the
        # author would shrink); the others are related locations.
        first = next((p for p in parts if p.where is not None), None)
        span = ev.index.span(first.where[0], first.where[1]) if first is not None and first.where else None
        related = [Related(ev.index.span(p.where[0], p.where[1]), f"{p.name}: {_part_words(p)}")
                   for p in parts if p.where is not None and p is not first]
        if budget.vmem_limit_where is not None:
            node, scope, _ = budget.vmem_limit_where
            related.append(Related(ev.index.span(node, scope), "vmem_limit_bytes"))
        return Report(error, headline, span=span, key=id(first) if first is not None else None,
                      related=tuple(related), fixable=self.fixable)

    fixable = False  # (a rule whose verdict a mechanical edit settles offers fixes)


def _part_words(part: BudgetPart) -> str:
    if part.buffers > 1:
        return f"{part.buffers} x {mib(part.each_bytes)}"
    return mib(part.total)


def parts_words(parts: list[BudgetPart]) -> str:
    """``x_ref 2 x 4 MiB, o_ref 2 x 4 MiB``: the biggest parts, as the hint says them."""
    return ", ".join(f"{p.name} {_part_words(p)}" for p in parts)


def limit_words(budget: LaunchBudget, chip: ChipMemory) -> str:
    if budget.vmem_limit is not None:
        return f"{mib(budget.vmem_limit)} (vmem_limit_bytes)"
    return f"{mib(chip.scoped_vmem_default)} (the scoped default on TPU {chip.generation})"
