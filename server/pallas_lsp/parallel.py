"""``pallas-lsp check -j N``: files checked by worker processes.

Each worker builds its own workspace program over the same root (imports are followed as in
a single process) and returns plain findings (no syntax trees cross process boundaries).
"""
from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from .analysis.findings import Finding
from .config import Config

if TYPE_CHECKING:
    from .checker import Checker

class _WorkerProcess:
    """What one worker process checks with: its checker (engine, program and their caches) and
    whether fixes are built. A pool's initializer cannot hand state to the tasks it runs except
    through the process itself, so the one instance below is the process's; the parent never
    sets it, and each worker sets it once (:func:`_init`)."""

    checker: Checker | None = None
    with_fixes = False  # (``check --fix`` wants the fixes built)


_PROCESS = _WorkerProcess()


def _init(base: Config, use_file_config: bool, root: str | None, with_fixes: bool = False,
          facts: dict | None = None, record: bool = False, prune: bool = True) -> None:
    from .checker import Checker
    from .rules import default_engine

    from .runtime import tune_gc

    tune_gc(batch=True)
    checker = Checker(default_engine(records=_records_of(base)), base, use_file_config=use_file_config,
                      prune=prune)
    if root is not None:
        checker.workspace(root)
        if facts:  # (the parent scanned every file already: no worker scans them again)
            checker.program.seed_facts(facts)  # type: ignore[attr-defined]
    checker.record = record
    _PROCESS.checker, _PROCESS.with_fixes = checker, with_fixes


def _check(paths: list[str]) -> list[tuple[str, list[Finding], dict | None]]:
    """Each file's findings, and what they depend on with its values (for the parent's cache;
    None when the file was not analysed in the workspace)."""
    worker, with_fixes = _PROCESS.checker, _PROCESS.with_fixes
    assert worker is not None
    out = []
    for p in paths:
        worker.recorded = {}
        findings = worker.check_file(Path(p))
        recorded = worker.recorded.get(os.path.abspath(p))
        # Contexts hold references into syntax trees: keep findings plain for pickling.
        # (Fix builders hold the analysis: only built fixes cross, and only for `check --fix`.)
        # (A notebook finding's cells are plain data and cross too.)
        out.append((p, [replace(f.detached(with_fixes=with_fixes), contexts=(), extra=_plain_extra(f.extra))
                        for f in findings], recorded))
    return out


def _plain_extra(extra: dict) -> dict:
    return {k: extra[k] for k in ("cell", "related_cells", "assumed") if k in extra}


def check_parallel(files: Sequence[Path], base: Config, use_file_config: bool, jobs: int,
                   root: str | None = None, *, with_fixes: bool = False,
                   facts: dict | None = None, record: bool = False,
                   prune: bool = True) -> list[tuple[str, list[Finding], dict | None]]:
    """Findings per file, checked by ``jobs`` processes; ``with_fixes``: each finding's fixes
    built in the worker (they cross as :class:`Prebuilt`); ``facts``: each module's scanned
    facts (Program.seed_facts), shared with every worker; ``record``: each analysed module's
    dependencies come back with the findings (the parent keeps them in its cache); ``prune``
    off: every module analysed, as the parent's full analysis (``PALLAS_LSP_FULL_ANALYSIS``)."""
    if not files:
        return []
    jobs = max(1, min(jobs, os.cpu_count() or 1, len(files)))
    # Contiguous chunks keep a package's modules in one worker (its program caches them).
    n = max(1, (len(files) + jobs * 4 - 1) // (jobs * 4))
    chunks = [[str(f) for f in files[i:i + n]] for i in range(0, len(files), n)]
    results: list[tuple[str, list[Finding], dict | None]] = []
    with ProcessPoolExecutor(max_workers=jobs, initializer=_init,
                             initargs=(base, use_file_config, root, with_fixes, facts, record, prune)) as pool:
        for part in pool.map(_check, chunks):
            results.extend(part)
    return results


def _records_of(base: Config):
    """The records ``--records`` names (the parent loaded them too and reported their problems)."""
    from .records import default_store

    return default_store(base.records).records
