"""The analysis core. Knows nothing of LSP or of the terminal."""
from .engine import AnalysisResult, Engine, analyse
from .findings import Finding, Fix, Related, Severity, TextEdit
from .module import Span

__all__ = ["AnalysisResult", "Engine", "Finding", "Fix", "Related", "Severity", "Span", "TextEdit", "analyse"]
