"""PAL513: a ``pl.pallas_call`` kernel that closes over a Ref in a memory space (the search is
``rules/closed_over_ref.py``, shared with PAL512)."""
from __future__ import annotations

from ...analysis.contexts import Mode
from ...analysis.findings import Fix
from ...analysis.fixes import remove_kwarg
from ...analysis.rule_api import Hit, Report
from ...rules.closed_over_ref import ClosedOverRefRule, closed_over_refs, ref_name


class PallasCallClosesOverRefMemorySpace(ClosedOverRefRule):
    """A `pl.pallas_call` kernel that closes over a Ref in a memory space.

    pallas_call's state-discharge rule accepts a closed-over `jax.new_ref(...)` only without
    a memory space or in `pl.ANY`; one made in VMEM, SMEM or HBM is refused (measured with
    `interpret=True`, TPU interpret params and compiled for TPU). Pass the value as an
    operand with a BlockSpec in that memory space, or use `pl.kernel`.
    """

    code = "PAL513"
    name = "pallas-call-closes-over-ref-memory-space"
    record = "pallas-call-closes-over-ref-memory-space"
    summary = "a pl.pallas_call kernel that closes over a Ref in VMEM, SMEM or HBM"
    label = "pl.pallas_call"
    modes = frozenset({Mode.INTERPRET, Mode.TPU_INTERPRET, Mode.TPU, Mode.COMPILED})

    def check(self, hit: Hit) -> Report | None:
        for ref in closed_over_refs(hit):
            if ref.space is not None:
                return self.report(
                    hit, ref, f"NotImplementedError: pallas_call does not support closing over Refs in memory space "
                              f"{ref.space}. Use pl.kernel instead.",
                    f"`{ref_name(ref)}` is a Ref in {_space_words(ref.space)} closed over by a `pl.pallas_call` kernel")
        return None

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        # A Ref without a memory space ran clean with interpret=True; TPU interpret params then
        # put it in ANY, which a kernel may not read directly (the oracle: get_p ... HBM or ANY).
        if hit.context.mode != Mode.INTERPRET:
            return []
        for ref in closed_over_refs(hit):
            if ref.space is None or ref.made is None:
                continue
            made = ref.made.site
            if hit.index.path_of(made.scope) != hit.index.path:
                return []
            edit = remove_kwarg(hit.index, made.node, made.scope, "memory_space")
            return [] if edit is None else [Fix(
                f"Make `{ref_name(ref)}` without a memory space (pallas_call accepts closing over such a Ref)",
                (edit,), preferred=True, safe=False)]
        return []


def _space_words(space: str) -> str:
    return "the default memory space" if space == "default" else space.upper()
