"""The analysis core. Knows nothing of LSP or of the terminal, and nothing of the rules: an
:class:`Engine` is handed its :class:`RuleSet` (``pallas_lsp.rules.default_rule_set()``)."""
from .engine import AnalysisResult, Engine
from .findings import Finding, Fix, Related, Severity, TextEdit
from .module import Span
from .rule_api import Hit, Report, Rule, RuleSet

__all__ = ["AnalysisResult", "Engine", "Finding", "Fix", "Hit", "Related", "Report", "Rule", "RuleSet", "Severity",
           "Span", "TextEdit"]
