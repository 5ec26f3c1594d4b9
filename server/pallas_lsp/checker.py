"""Checking files on disk: discovery, per-file config, and the engine. Used by the CLI.

Every path given or found is accounted for: a file that is not read (a FIFO, a device, a
symlink loop, no permission, a folder that cannot be listed, a symlinked folder outside the
tree) is one ``PAL902`` finding, a file over the size limit one ``PAL903``, a file CPython
would not decode one ``PAL900`` at the offending line, and the run goes on. None of them is
ever counted as "no problems".
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

from .analysis.engine import SYNTAX_CODE, Engine
from .analysis.findings import Finding, Severity
from .analysis.module import Span
from .analysis.program import read_source_file, walk_entries
from .config import Config, find_config
from .files import MAX_SOURCE_BYTES, FileReadError, SourceDecodeError, folder_problem

UNREADABLE_CODE = "PAL902"
TOO_LARGE_CODE = "PAL903"


def discover(paths: Sequence[str]) -> Iterator[Path]:
    """Python files under ``paths`` (files given explicitly are always included), and each
    entry the walk could not look into (``Checker.check_file`` says why)."""
    for raw in paths:
        p = Path(raw)
        if os.path.isdir(p):  # (os.path: False, not an exception, for what cannot be examined)
            yield from (Path(f) for f, _ in walk_entries(p, (".py", ".pyi")))
        elif os.path.lexists(p):  # a FIFO, a device, a broken or looping symlink: reported, not skipped
            yield p


def read_source(path: Path, max_bytes: int = MAX_SOURCE_BYTES) -> str:
    """A Python file's text; :class:`FileReadError` (an ``OSError``) or
    :class:`SourceDecodeError` when it is not read or CPython would not decode it."""
    return read_source_file(str(path), max_bytes)


def unread_finding(path: Path, exc: FileReadError | SourceDecodeError) -> Finding:
    """The one finding for a file that was not analysed, with the reason."""
    if isinstance(exc, SourceDecodeError):
        return Finding(SYNTAX_CODE, "syntax-error", None, Severity.ERROR, f"Syntax error: {exc.message}",
                       Span(exc.line, 0, exc.line, 0))
    if exc.kind == "too-large":
        return Finding(TOO_LARGE_CODE, "file-too-large", None, Severity.INFORMATION,
                       f"pallas-lsp does not analyse this file: {exc.reason}", Span(1, 0, 1, 0))
    reason, severity = exc.reason, Severity.ERROR
    if os.path.isdir(path):  # a folder the walk reported: say why it was not looked into
        reason = folder_problem(path) or reason
        if os.path.islink(path):  # nothing is wrong with it, but its files were not checked
            severity = Severity.WARNING
    return Finding(UNREADABLE_CODE, "unreadable-file", None, severity, f"Cannot read: {reason}",
                   Span(1, 0, 1, 0))


@dataclass
class Checker:
    engine: Engine = field(default_factory=Engine)
    base: Config = field(default_factory=Config)
    use_file_config: bool = True
    max_file_bytes: int = MAX_SOURCE_BYTES  # larger files get one PAL903 and are never read

    def config_for(self, path: Path) -> Config:
        if not self.use_file_config:
            return Config().merged(self.base)
        try:
            cfg = find_config(path)
        except (OSError, RuntimeError):  # a symlink loop cannot be resolved: its folder's config
            cfg = find_config(path.parent)
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
            text = read_source(path, self.max_file_bytes)
        except (FileReadError, SourceDecodeError) as exc:
            return [unread_finding(path, exc)]
        return self.check_text(text, str(path), self.config_for(path))
