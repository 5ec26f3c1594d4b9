"""The shared part of the TPU Ref-access rules (PAL720-PAL727): each walks the Ref accesses of
a kernel compiled for TPU (``analysis/ref_access.py``), takes the first check each access fails
in the lowering's order, and reports the first access whose defect is of its own kind."""
from __future__ import annotations

from ..analysis import api
from ..analysis.contexts import Mode
from ..analysis.findings import Fix, Related, TextEdit
from ..analysis.fixes import value_in_module
from ..analysis.ref_access import Defect, access_defects, ref_accesses
from ..analysis.rule_api import Hit, Report
from .base import PythonRule


class RefAccessRule(PythonRule):
    """A rule on the first Ref access of a compiled TPU kernel that fails with ``defect_kind``."""

    defect_kind = ""
    label = "a Ref access"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL, api.PL_KERNEL})
    modes = frozenset({Mode.TPU})  # (interpret mode reads and writes any memory space)
    launch_apis = frozenset({api.PALLAS_CALL, api.PL_KERNEL})
    fix_title = ""

    def applies(self, hit: Hit) -> bool:
        # Lowered for another platform, the Mosaic TPU lowering never runs.
        return super().applies(hit) and hit.context.lowered_for in (None, "tpu")

    def defect(self, hit: Hit) -> Defect | None:
        accesses = ref_accesses(hit.ev, hit.launch, hit.view.reached)
        if accesses is None:
            return None
        return next((d for d in access_defects(accesses) if d.kind == self.defect_kind), None)

    def check(self, hit: Hit) -> Report | None:
        d = self.defect(hit)
        if d is None:
            return None
        ev = hit.ev
        span = ev.index.span(d.node, d.where)
        related = []
        declared = d.access.fact.declared
        if declared is not None:
            where = ev.index.span(declared[0], declared[1])
            if where.line != span.line:
                related.append(Related(where, f"where `{d.access.param}` is declared"))
        headline = d.detail[0].upper() + d.detail[1:]
        return Report(d.error, headline, span=span, key=id(d.node), related=tuple(related),
                      fixable=bool(self.fix_title) and self.fixable(d))

    def fixable(self, d: Defect) -> bool:
        return False

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        d = self.defect(hit)
        if d is None or not self.fixable(d):
            return []
        fix = self.build_fix(hit, d)
        return [fix] if fix is not None else []

    def build_fix(self, hit: Hit, d: Defect) -> Fix | None:
        return None


def wrap_multiple_of(hit: Hit, d: Defect, title: str) -> Fix | None:
    """``start`` becomes ``pl.multiple_of(start, 128)`` (in the module's name for pallas)."""
    index = hit.index
    node = d.start
    if node is None or index.path_of(d.access.scope) != index.path:
        return None
    code = index.code_of(node, d.access.scope)
    if not code or "\n" in code:
        return None
    text, imports = value_in_module(index, "{jax.experimental.pallas}.multiple_of(" + code + ", 128)")
    return Fix(title, (TextEdit(index.span(node, d.access.scope), text),) + imports, preferred=True, safe=True)
