"""Checking files on disk: discovery, per-file config, and the engine. Used by the CLI."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

from .analysis.engine import Engine
from .analysis.findings import Finding, Severity
from .analysis.module import Span
from .analysis.program import read_file, walk_python_files
from .config import Config, find_config

def discover(paths: Sequence[str]) -> Iterator[Path]:
    """Python files under ``paths`` (files given explicitly are always included)."""
    for raw in paths:
        p = Path(raw)
        if p.is_file():
            yield p
        elif p.is_dir():
            yield from (Path(f) for f in walk_python_files(p, (".py", ".pyi")))


def read_source(path: Path) -> str:
    text = read_file(str(path))
    if text is None:
        raise OSError(f"cannot read {path}")
    return text


@dataclass
class Checker:
    engine: Engine = field(default_factory=Engine)
    base: Config = field(default_factory=Config)
    use_file_config: bool = True

    def config_for(self, path: Path) -> Config:
        cfg = find_config(path) if self.use_file_config else Config()
        return cfg.merged(self.base)

    program: object = None  # analysis.program.Program: follow imports across the checked tree

    def check_text(self, text: str, path: str, cfg: Config) -> list[Finding]:
        if self.program is not None:
            result = self.engine.analyse_in(self.program, path, select=cfg.select, ignore=cfg.ignore)
            # One finding per failing construct: the reminders at launches in other modules are for editors.
            return [f for f in result.findings if not f.secondary]
        result = self.engine.analyse(text, path, select=cfg.select, ignore=cfg.ignore)
        return result.findings

    def check_file(self, path: Path) -> list[Finding]:
        try:
            text = read_source(path)
        except OSError as exc:
            return [Finding("PAL902", "unreadable-file", None, Severity.ERROR, f"Cannot read file: {exc}",
                            Span(1, 0, 1, 0))]
        return self.check_text(text, str(path), self.config_for(path))
