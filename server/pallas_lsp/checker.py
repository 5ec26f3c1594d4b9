"""Checking files on disk: discovery, per-file config, and the engine. Used by the CLI."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

from .analysis.engine import Engine
from .analysis.findings import Finding, Severity
from .analysis.module import Span
from .config import Config, find_config

SKIP_DIRS = {"__pycache__", "node_modules", "site-packages", "venv", "env", "build", "dist"}


def _is_venv(d: Path) -> bool:
    return (d / "pyvenv.cfg").exists()


def discover(paths: Sequence[str]) -> Iterator[Path]:
    """Python files under ``paths`` (files given explicitly are always included)."""
    for raw in paths:
        p = Path(raw)
        if p.is_file():
            yield p
            continue
        if not p.is_dir():
            continue
        for root, dirs, files in os.walk(p):
            rootp = Path(root)
            dirs[:] = sorted(d for d in dirs
                             if not d.startswith(".") and d not in SKIP_DIRS and not _is_venv(rootp / d))
            for name in sorted(files):
                if name.endswith((".py", ".pyi")) and not name.startswith("."):
                    yield rootp / name


def read_source(path: Path) -> str:
    data = path.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", errors="replace")


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
