"""The rules: the built-in Python rules (one module each, each tied to its error record by
slug) and the rules the records' detection sections declare as data (``data.py``)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ..analysis.rule_api import Rule, RuleSet
from .base import ApiInContextRule, Example, PythonRule
from .dynamic_grid_gpu_interpret import DynamicGridInGpuInterpret
from .closed_over_ref import GpuInterpretClosedOverRef, PallasCallClosesOverRefMemorySpace
from .get_global_interpret import GetGlobalInInterpretMode
from .get_global_non_semaphore import GetGlobalOfNonSemaphore
from .hbm_direct_access import HbmDirectAccessInTpuInterpret
from .mgpu_primitive_interpret import MgpuPrimitiveInInterpretMode
from .triton_lower_no_gpu import TritonLoweredForCudaWithoutGpu
from .inline_mgpu_interpret import InlineMgpuInInterpretMode
from .unlowered_primitive import PrimitiveNotLowered

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.engine import AnalysisResult, Engine
    from ..records import ErrorRecord

RULE_CLASSES: tuple[type[PythonRule], ...] = (
    GetGlobalInInterpretMode,
    GetGlobalOfNonSemaphore,
    InlineMgpuInInterpretMode,
    DynamicGridInGpuInterpret,
    PrimitiveNotLowered,
    GpuInterpretClosedOverRef,
    PallasCallClosesOverRefMemorySpace,
    MgpuPrimitiveInInterpretMode,
    HbmDirectAccessInTpuInterpret,
    TritonLoweredForCudaWithoutGpu,
)


def python_rules() -> list[Rule]:
    return [cls() for cls in RULE_CLASSES]


def default_rule_set(records: "Iterable[ErrorRecord] | None" = None) -> RuleSet:
    """The built-in Python rules plus one data rule per record that carries a detection
    section (``records``: a store's records; None: the built-in records)."""
    from .data import data_rules

    if records is None:
        from ..records import builtin_records

        records = builtin_records()[0]
    rules = python_rules()
    taken = {c for r in rules for c in (r.code, r.name)}
    for rule in data_rules(records):
        if rule.code in taken or rule.name in taken:
            continue  # (reported when the record loads: see data.detection_problems)
        taken |= {rule.code, rule.name}
        rules.append(rule)
    return RuleSet(rules)


def default_engine(*, incremental: bool = False, records: "Iterable[ErrorRecord] | None" = None) -> "Engine":
    from ..analysis.engine import Engine

    return Engine(default_rule_set(records), incremental=incremental)


_DEFAULT: "Engine | None" = None


def analyse(text: str, path: str | None = None, **kw) -> "AnalysisResult":
    """One module with the built-in rules (a convenience for scripts and tests)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = default_engine()
    return _DEFAULT.analyse(text, path, **kw)


def rule_by_code(code: str) -> Rule | None:
    for cls in RULE_CLASSES:
        if code in (cls.code, cls.name):
            return cls()
    return None


__all__ = ["ApiInContextRule", "Example", "PythonRule", "RULE_CLASSES", "Rule", "RuleSet", "analyse",
           "default_engine", "default_rule_set", "python_rules", "rule_by_code"]
