"""PAL624: in_specs given as a single BlockSpec or a dict instead of a list or tuple."""
from __future__ import annotations

from ...rules.launch_spec_fixes import wrap_in_specs
from ...rules.launch_spec_rule import SpecDefectRule


class InSpecsNotSequence(SpecDefectRule):
    """`in_specs` must be a list or tuple.

    `GridSpec.__init__` accepts only a list or tuple for `in_specs` (a bare spec is allowed for
    `out_specs` only); a single BlockSpec or a dict raises when the grid spec is built, in every
    mode. Wrap it in a list.
    """

    code = "PAL624"
    name = "in-specs-not-sequence"
    record = "in-specs-not-sequence"
    summary = "in_specs given as a single BlockSpec or a dict instead of a list or tuple"
    label = "pl.BlockSpec"

    def error(self, hit, defect) -> str:
        return "ValueError: " + defect.detail

    def fix(self, hit, defect):
        return wrap_in_specs(hit, defect)
