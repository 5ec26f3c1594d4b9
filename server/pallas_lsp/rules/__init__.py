"""The rules, one module each, each tied to its error record by slug."""
from __future__ import annotations

from .base import ApiInContextRule, Example, Rule
from .dynamic_grid_gpu_interpret import DynamicGridInGpuInterpret
from .get_global_interpret import GetGlobalInInterpretMode
from .get_global_non_semaphore import GetGlobalOfNonSemaphore
from .inline_mgpu_interpret import InlineMgpuInInterpretMode

RULE_CLASSES: tuple[type[Rule], ...] = (
    GetGlobalInInterpretMode,
    GetGlobalOfNonSemaphore,
    InlineMgpuInInterpretMode,
    DynamicGridInGpuInterpret,
)


def all_rules() -> list[Rule]:
    return [cls() for cls in RULE_CLASSES]


def rule_by_code(code: str) -> Rule | None:
    for cls in RULE_CLASSES:
        if code in (cls.code, cls.name):
            return cls()
    return None


__all__ = ["ApiInContextRule", "Example", "Rule", "RULE_CLASSES", "all_rules", "rule_by_code"]
