"""PAL512: a GPU-interpreted ``pl.pallas_call`` kernel that closes over a Ref (the search is
``rules/closed_over_ref.py``, shared with PAL513)."""
from __future__ import annotations

from ...analysis.contexts import Mode
from ...analysis.findings import Fix
from ...analysis.rule_api import Hit, Report
from ...rules.closed_over_ref import ClosedOverRefRule, closed_over_refs, pass_as_operand_fix, ref_name


class GpuInterpretClosedOverRef(ClosedOverRefRule):
    """A GPU-interpreted `pl.pallas_call` whose kernel closes over a Ref.

    In GPU interpret mode `pl.pallas_call` binds its primitive with an extra
    `kernel_arg_transforms` parameter. A kernel that reads a `jax.new_ref(...)` made outside it
    sends the launch through pallas_call's state-discharge rule, whose fixed parameters do
    not include it: a TypeError, whatever the Ref's memory space. Pass the value to the
    launch as an operand instead.
    """

    code = "PAL512"
    name = "gpu-interpret-pallas-call-closed-over-ref"
    record = "gpu-interpret-pallas-call-closed-over-ref"
    summary = "a GPU-interpreted pl.pallas_call kernel that closes over a jax.new_ref Ref"
    label = "pl.pallas_call"
    modes = frozenset({Mode.GPU_INTERPRET})

    def check(self, hit: Hit) -> Report | None:
        refs = closed_over_refs(hit)
        if not refs:
            return None
        return self.report(hit, refs[0], "TypeError: _pallas_call_state_discharge_rule() got an unexpected keyword "
                                         "argument 'kernel_arg_transforms'",
                           f"`{ref_name(refs[0])}` is a Ref closed over by a GPU-interpreted `pl.pallas_call` kernel")


    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        refs = closed_over_refs(hit)
        fix = pass_as_operand_fix(hit, refs[0]) if refs else None
        return [fix] if fix is not None else []
