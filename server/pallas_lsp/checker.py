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
from .analysis.fixes import choose_fixes, fix_candidates  # noqa: F401 - (check's fix policy)
from .analysis.module import Span
from .analysis.caches import DiskTexts
from .analysis.program import read_source_file, walk_entries
from .config import Config, find_config, with_known_rules
from .files import MAX_SOURCE_BYTES, FileReadError, SourceDecodeError, folder_problem, read_regular_bytes
from .notebooks import NOTEBOOK_SUFFIX, NotebookError, findings_in_cells, is_notebook, join_notebook

UNREADABLE_CODE = "PAL902"
TOO_LARGE_CODE = "PAL903"


def discover(paths: Sequence[str]) -> Iterator[Path]:
    """Python files and notebooks under ``paths`` (files given explicitly are always included), and each
    entry the walk could not look into (``Checker.check_file`` says why)."""
    for raw in paths:
        p = Path(raw)
        if os.path.isdir(p):  # (os.path: False, not an exception, for what cannot be examined)
            yield from (Path(f) for f, _ in walk_entries(p, (".py", ".pyi", NOTEBOOK_SUFFIX)))
        elif os.path.lexists(p):  # a FIFO, a device, a broken or looping symlink: reported, not skipped
            yield p


def read_source(path: Path, max_bytes: int = MAX_SOURCE_BYTES, disk: DiskTexts | None = None) -> str:
    """A Python file's text (through ``disk``, the engine's file cache, when given);
    :class:`FileReadError` (an ``OSError``) or :class:`SourceDecodeError` when it is not read
    or CPython would not decode it."""
    return disk.read_source(str(path), max_bytes) if disk is not None else read_source_file(str(path), max_bytes)


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
    engine: Engine = field(default_factory=lambda: _default_engine())
    base: Config = field(default_factory=Config)
    use_file_config: bool = True
    max_file_bytes: int = MAX_SOURCE_BYTES  # larger files get one PAL903 and are never read
    # (jax-version, where written, root) -> releases.ReleaseChoice: each environment read once a run
    _releases: dict = field(default_factory=dict, repr=False)
    # The checked tree's root (its .venv is the workspace's environment when no pyproject.toml
    # says where the project is); None: the program's root, else the working folder.
    root: Path | None = None

    def file_config(self, path: Path) -> Config:
        """The file's own settings (its pyproject.toml), rules not checked yet: the records they
        name may declare the rules their ``select`` names (:meth:`config_for` checks them)."""
        if not self.use_file_config:
            return Config()
        try:
            return find_config(path)
        except (OSError, RuntimeError):  # a symlink loop cannot be resolved: its folder's config
            return find_config(path.parent)

    def config_for(self, path: Path, file_config: Config | None = None) -> Config:
        """The settings the file is checked with: its own (``file_config``, else read), their
        rules checked against the engine's rule set, under the command line's."""
        cfg = file_config if file_config is not None else self.file_config(path)
        merged = with_known_rules(cfg, self.engine.rules).merged(self.base)
        from dataclasses import replace

        if self.base.select is not None:  # the command line's --select wins over the file's (as in ruff)
            merged = replace(merged, select=self.base.select)
        if self.base.backends is not None:  # (and --backends over the file's `backends`)
            merged = replace(merged, backends=self.base.backends)
        if self.base.jax_version is not None:  # (and --jax-version over the file's `jax-version`)
            merged = replace(merged, jax_version=self.base.jax_version, jax_version_from=self.base.jax_version_from)
        if self.base.tpu_generation is not None:  # (and --tpu-generation over the file's `tpu-generation`)
            merged = replace(merged, tpu_generation=self.base.tpu_generation,
                             tpu_generation_from=self.base.tpu_generation_from)
        return merged

    def release_for(self, cfg: Config):
        """The jax release the file is checked against (releases.ReleaseChoice): the settings'
        ``jax-version``, else the jax of the workspace's environment (a ``.venv`` beside the
        pyproject.toml, or at the checked tree's root), else pallas-lsp's own, else the newest."""
        from .releases import release_for_config

        key = (cfg.jax_version, cfg.jax_version_from, cfg.source, str(self._root()))
        got = self._releases.get(key)
        if got is None:
            got = self._releases[key] = release_for_config(cfg, None, self._root())
        return got

    def _root(self) -> Path:
        root = self.root if self.root is not None else getattr(self.program, "root", None)
        return Path(root) if root is not None else Path.cwd()

    def _release(self, cfg: Config):
        from .releases import analysis_release

        return analysis_release(self.release_for(cfg).release_used)

    program: object = None  # analysis.program.Program: follow imports across the checked tree

    # Modules that cannot concern Pallas (Program.concerns_pallas) are not analysed; False: every
    # file is, as before (the benchmarks and tests compare the two).
    prune: bool = True

    def _concerns_pallas(self, text: str, path: str) -> bool:
        """Whether the file is analysed at all (``prune``: Program.concerns_pallas); a text that
        is not is not kept either."""
        if not self.prune:
            return True
        if self.program is None:  # (--single-file: what the text alone says)
            from .analysis.program import file_facts

            concerns = file_facts(text).pallas_by_itself
        elif is_notebook(path):
            concerns = self.program.text_concerns_pallas(path, text)  # type: ignore[attr-defined]
        else:
            concerns = self.program.concerns_pallas(path)  # type: ignore[attr-defined]
        if not concerns:
            self.engine.caches.disk.release(path)
        return concerns

    # chips.ChipClaims of the run's records (None: the built-in records'): what a finding of a
    # chip-only kind says for the file's `tpu-generation`.
    chip_claims: object = None

    def _claimed(self, findings: list[Finding], cfg: Config) -> list[Finding]:
        if self.chip_claims is None:
            from .chips import ChipClaims
            from .records import builtin_records

            self.chip_claims = ChipClaims.of(builtin_records()[0])
        return self.chip_claims.claimed(findings, cfg.tpu_generation)  # type: ignore[attr-defined]

    def check_text(self, text: str, path: str, cfg: Config) -> list[Finding]:
        if not self._concerns_pallas(text, path):
            return []
        if self.program is not None:
            if self.cache is not None and not is_notebook(path):
                return self._cached(path, cfg)
            if self.record and not is_notebook(path):  # (a -j worker, for the parent's cache)
                findings, deps = self.analyse_recording(path, cfg)
                self.recorded[os.path.abspath(path)] = self.dependency_values(deps)
                return findings
            return self._analyse_in(path, cfg)
        result = self.engine.analyse(text, path, select=cfg.select, ignore=cfg.ignore,
                                     backends=cfg.backends or (), assume_interpret=cfg.assume_interpret,
                                     assume_compiled=cfg.assume_compiled, release=self._release(cfg))
        return self._claimed(result.findings, cfg)

    def _analyse_in(self, path: str, cfg: Config) -> list[Finding]:
        result = self.engine.analyse_in(self.program, path, select=cfg.select, ignore=cfg.ignore,
                                        backends=cfg.backends or (), assume_interpret=cfg.assume_interpret,
                                        assume_compiled=cfg.assume_compiled, release=self._release(cfg))
        # One finding per failing construct: the reminders at launches in other modules are for editors.
        # (Claimed before the cache keeps them: its entries are keyed by the settings, generation included.)
        return self._claimed([f for f in result.findings if not f.secondary], cfg)

    # The on-disk cache (cache.CheckCache) and the settings its results are keyed by: only for
    # runs that neither fix nor need fixes (a cached finding has none).
    cache: object = None
    cache_settings: str = ""

    def settings_key(self, cfg: Config) -> str:
        from .cache import content_hash

        # (the release used, not only the setting: the workspace's jax may change under it)
        return content_hash(f"{self.cache_settings}\0{cfg!r}\0{self.release_for(cfg).release_used}")

    def _cached(self, path: str, cfg: Config) -> list[Finding]:
        cache = self.cache
        key = os.path.abspath(path)
        settings = self.settings_key(cfg)
        found = cache.lookup(key, settings, self._dependency_value)  # type: ignore[attr-defined]
        if found is not None:
            return found
        findings, deps = self.analyse_recording(path, cfg)
        cache.keep(key, settings, deps, self._dependency_value,  # type: ignore[attr-defined]
                   [f.detached(with_fixes=False) for f in findings])
        return findings

    def analyse_recording(self, path: str, cfg: Config) -> tuple[list[Finding], set[str]]:
        """The findings of a module and everything they depend on (Program.note)."""
        with self.program.track() as deps:  # type: ignore[attr-defined]
            findings = self._analyse_in(path, cfg)
        return findings, deps | {os.path.abspath(path), "?files"}

    def findings_without_analysis(self, path: Path) -> list[Finding] | None:
        """``check -j``: a module's findings when no analysis is needed for them (one that is
        not read, one that does not concern Pallas, one the cache answers); None when it is
        (the parent sends it to a worker)."""
        if is_notebook(path) or os.path.isdir(path):
            return None
        try:
            text = read_source(path, self.max_file_bytes, self.engine.caches.disk)
        except (FileReadError, SourceDecodeError) as exc:
            return [unread_finding(path, exc)]
        if not self._concerns_pallas(text, str(path)):
            return []
        if self.cache is None or self.program is None:
            return None
        settings = self.settings_key(self.config_for(path))
        return self.cache.lookup(os.path.abspath(path), settings,  # type: ignore[attr-defined]
                                 self._dependency_value)

    def dependency_values(self, deps: set[str]) -> dict[str, str]:
        return {d: self._dependency_value(d) for d in deps}

    def _dependency_value(self, dependency: str) -> str:
        """What a dependency of a cached result is now (see :meth:`Program.note`): a module's
        content hash, an importer list, a "concerns Pallas" answer, the workspace's file list."""
        memo = self._dependency_memo
        got = memo.get(dependency)
        if got is not None:
            return got
        from .cache import UNCACHEABLE, content_hash

        program = self.program
        if dependency == "?files":
            got = content_hash("\0".join(program.files()))  # type: ignore[attr-defined]
        elif dependency.startswith("?importers\0"):
            _, p, depth = dependency.split("\0")
            got = content_hash("\0".join(program.importers_of(p, int(depth))))  # type: ignore[attr-defined]
        elif dependency.startswith("?concerns\0"):
            got = "1" if program.concerns_pallas(dependency.split("\0", 1)[1]) else "0"  # type: ignore[attr-defined]
        elif dependency == UNCACHEABLE:
            got = "?"
        else:
            got = program.digest(dependency) or "-"  # type: ignore[attr-defined]
        memo[dependency] = got
        return got

    _dependency_memo: dict = field(default_factory=dict)  # (the files do not change during a run)
    record: bool = False  # a -j worker: record each analysed module's dependencies in ``recorded``
    recorded: dict = field(default_factory=dict)

    overlay: TextOverlay = field(default_factory=lambda: TextOverlay())

    def __post_init__(self) -> None:
        if self.overlay.disk is None:  # (files under the overlay are read through the engine's cache)
            self.overlay.disk = self.engine.caches.disk

    def workspace(self, root) -> object:
        """The workspace program over ``root``, reading modules through this checker's overlay
        and sharing the engine's caches (one parse of each block, one read of each file)."""
        from .analysis.program import Program

        self.program = Program(root, read=self.overlay, caches=self.engine.caches)
        self.program.prune = self.prune
        return self.program

    def set_text(self, path: Path | str, text: str) -> None:
        """``path`` reads ``text`` from now on (a fix not written yet)."""
        key = os.path.abspath(path)
        self.overlay.texts[key] = text
        if self.program is not None:
            self.program.forget(key)  # type: ignore[attr-defined]

    def fix_file(self, path: Path, *, unsafe: bool = False, findings: list[Finding] | None = None) -> "FixResult":
        """Apply the fixes of the file's findings (``findings``: those already found in its text
        on disk), in passes, until none applies; the file is not written."""
        return _fix_file(self, path, unsafe=unsafe, findings=findings)

    def check_file(self, path: Path) -> list[Finding]:
        if is_notebook(path) and not os.path.isdir(path):
            return self.check_notebook(path)
        try:
            text = read_source(path, self.max_file_bytes, self.engine.caches.disk)
        except (FileReadError, SourceDecodeError) as exc:
            return [unread_finding(path, exc)]
        return self.check_text(text, str(path), self.config_for(path))


    def analysis_of(self, path: Path, cfg: Config):
        """The analysis of one file (not a notebook) as ``check`` makes it, uncached: for what
        is worked out from its launches after the findings (``pallas-lsp launches``); None for
        a module that cannot concern Pallas. Raises FileReadError/SourceDecodeError for a file
        that cannot be read."""
        text = read_source(path, self.max_file_bytes, self.engine.caches.disk)
        if not self._concerns_pallas(text, str(path)):
            return None
        if self.program is not None:
            return self.engine.analyse_in(self.program, str(path), select=cfg.select, ignore=cfg.ignore,
                                          backends=cfg.backends or (), assume_interpret=cfg.assume_interpret,
                                          assume_compiled=cfg.assume_compiled, release=self._release(cfg))
        return self.engine.analyse(text, str(path), select=cfg.select, ignore=cfg.ignore,
                                   backends=cfg.backends or (), assume_interpret=cfg.assume_interpret,
                                   assume_compiled=cfg.assume_compiled, release=self._release(cfg))

    def check_notebook(self, path: Path) -> list[Finding]:
        """A notebook's code cells analysed as one module; findings in cell coordinates
        (:func:`notebooks.findings_in_cells`). A notebook that is not read or not valid is one
        ``PAL902`` finding."""
        try:
            joined = join_notebook(read_regular_bytes(path, self.max_file_bytes))
        except FileReadError as exc:
            return [unread_finding(path, exc)]
        except NotebookError as exc:
            return [Finding(UNREADABLE_CODE, "unreadable-file", None, Severity.ERROR,
                            f"Cannot read notebook: {exc}", Span(1, 0, 1, 0))]
        if not joined.cells:
            return []
        # The workspace program reads the notebook's module (the joined cells) through the overlay.
        self.set_text(path, joined.text)
        findings = self.check_text(joined.text, str(path), self.config_for(path))
        return findings_in_cells(joined, findings, str(path))


# --- check --fix -----------------------------------------------------------------------------------
MAX_FIX_PASSES = 4  # fixing may uncover or build new fixes; a few passes, as ruff does


@dataclass
class FixResult:
    """One file after ``check --fix``: its text before and after, the fixes applied and what the
    analysis still finds in the fixed text."""

    path: str
    original: str | None  # None: the file was not read
    fixed: str | None
    applied: int
    findings: list[Finding]

    @property
    def changed(self) -> bool:
        return self.original is not None and self.fixed is not None and self.fixed != self.original


def apply_fixes(text: str, fixes: Sequence) -> tuple[str, int]:
    """``text`` with ``fixes`` applied (edits shared by several fixes applied once) and how many
    were applied. The result always parses: when all of them together would not, they are
    taken one by one and each kept only if the text still parses with it."""
    from .analysis.cst_edits import parses
    from .analysis.edits import apply_edits

    def edited(subset: Sequence) -> str | None:
        edits = list(dict.fromkeys(e for fx in subset for e in fx.edits))
        try:
            out = apply_edits(text, edits)
        except ValueError:  # overlapping edits
            return None
        return out if parses(out) else None

    if not fixes:
        return text, 0
    together = edited(fixes)
    if together is not None:
        return together, len(fixes)
    kept: list = []
    for fx in fixes:
        if edited([*kept, fx]) is not None:
            kept.append(fx)
    return (edited(kept) or text, len(kept)) if kept else (text, 0)


class TextOverlay:
    """The texts ``check --fix`` has changed but not written yet, over the files on disk: the
    workspace program reads modules through it, so a pass sees the previous pass's fixes."""

    def __init__(self, disk: DiskTexts | None = None) -> None:
        self.texts: dict[str, str] = {}
        self.disk = disk  # where files are read from (the checker sets its engine's)

    def __call__(self, path: str) -> str | None:
        from .analysis.program import read_file

        got = self.texts.get(os.path.abspath(path))
        if got is not None:
            return got
        return self.disk.read(path) if self.disk is not None else read_file(path)

    def overrides(self, path: str) -> bool:
        """Whether ``path`` reads a fixed text instead of the file (Program._on_disk)."""
        return os.path.abspath(path) in self.texts


def _fix_file(checker: "Checker", path: Path, *, unsafe: bool, findings: list[Finding] | None) -> FixResult:
    try:
        text = read_source(path, checker.max_file_bytes, checker.engine.caches.disk)
    except (FileReadError, SourceDecodeError) as exc:
        return FixResult(str(path), None, None, 0, [unread_finding(path, exc)])
    cfg = checker.config_for(path)
    original = text
    if findings is None:
        findings = checker.check_text(text, str(path), cfg)
    applied, seen = 0, {text}
    for _ in range(MAX_FIX_PASSES):
        new, n = apply_fixes(text, choose_fixes(findings, str(path), unsafe=unsafe))
        if n == 0 or new in seen:
            break
        text, applied = new, applied + n
        seen.add(text)
        checker.set_text(path, text)
        findings = checker.check_text(text, str(path), cfg)
    return FixResult(str(path), original, text, applied, findings)


def write_fixed(result: FixResult) -> str | None:
    """Write a fixed file in the encoding it was read in (its line breaks are in the text);
    None when written, else why not. Never a text that does not parse."""
    from .analysis.cst_edits import parses

    if not result.changed:
        return None
    assert result.fixed is not None
    if not parses(result.fixed):
        return "the fixed text would not parse"
    import tokenize

    path = Path(result.path)
    try:
        with open(path, "rb") as fh:
            encoding, _ = tokenize.detect_encoding(fh.readline)
        data = result.fixed.encode(encoding)
        with open(path, "wb") as fh:
            fh.write(data)
    except (OSError, SyntaxError, UnicodeError, LookupError) as exc:
        return f"cannot write it: {exc}"
    return None


def unified_diff(result: FixResult) -> str:
    import difflib

    if not result.changed:
        return ""
    assert result.original is not None and result.fixed is not None
    lines = difflib.unified_diff(result.original.splitlines(keepends=True), result.fixed.splitlines(keepends=True),
                                 fromfile=result.path, tofile=result.path)
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
                   for line in lines)


def _default_engine() -> Engine:
    from .rules import default_engine

    return default_engine()
