"""The base of the kinds a pallas_call's BlockSpecs raise while it is traced
(``analysis/launch_specs.py`` finds the first failing check in JAX's order)."""
from __future__ import annotations

from ..analysis import api
from ..analysis.contexts import Mode
from ..analysis.findings import Fix, Related
from ..analysis.launch_specs import SpecDefect, first_spec_defect
from ..analysis.rule_api import Hit, Report
from .base import PythonRule


class SpecDefectRule(PythonRule):
    """A launch rule that reports the launch's first spec defect when it is this rule's kind.

    The checks run while the launch is traced, before any backend is chosen, so the rule holds
    in every context (a CPU host included: tracing comes before the CPU backend refuses a
    compiled launch)."""

    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset(Mode)

    def applies(self, hit: Hit) -> bool:
        return hit.launch.api.name == api.PALLAS_CALL

    def error(self, hit: Hit, defect: SpecDefect) -> str:
        raise NotImplementedError

    def fix(self, hit: Hit, defect: SpecDefect) -> Fix | None:
        """The kind's mechanical fix of the defect, where it has one (see ``launch_spec_fixes``)."""
        return None

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        defect = first_spec_defect(hit.ev, hit.launch)
        if defect is None or defect.kind != self.record:
            return []
        fix = self.fix(hit, defect)
        return [fix] if fix is not None else []

    def check(self, hit: Hit) -> Report | None:
        defect = first_spec_defect(hit.ev, hit.launch)
        if defect is None or defect.kind != self.record:
            return None
        ev = hit.ev
        node, scope, _ = defect.where
        span = ev.index.span(node, scope)
        related = [Related(ev.index.span(n, s), words) for (n, s, _), words in defect.related
                   if ev.index.span(n, s).line != span.line]
        kernel = hit.launch.kernel
        if kernel is not None and kernel.node is not None and kernel.kind == "function":
            related.append(Related(ev.index.span(kernel.node, kernel.parent), "the kernel"))
        headline = defect.detail[0].upper() + defect.detail[1:]
        return Report(self.error(hit, defect), headline, span=span, key=id(node), related=tuple(related),
                      fixable=type(self).fix is not SpecDefectRule.fix)
