"""``pallas-lsp serve``: a pygls 2 server over the analysis core.

State lives in :class:`PallasServer` (documents, notebooks, settings, results);
each LSP method has one small handler below. Analysis runs on a worker thread,
debounced per document for push clients, on demand for pull clients; a result
for a version the client has moved past is never published.
"""
from __future__ import annotations

import asyncio
import gc
import logging
import os
import queue
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..config import Config, find_config, with_known_rules
from .documents import CellSlice, Document, Notebook, cell_of, join_cells
from .positions import UTF16
from .protocol import PallasProtocol
from .settings import Settings, parse_settings

if TYPE_CHECKING:
    # The analysis engine, the records and what presents them are imported after `initialize`
    # is answered (warm_up, on the worker): `initialize` needs none of them.
    from ..analysis.engine import AnalysisResult, Engine
    from ..analysis.findings import Finding
    from ..records import RecordStore
    from .convert import Location

log = logging.getLogger("pallas_lsp")
FIX_ALL_KIND = "source.fixAll.pallas-lsp"
WORKSPACE_QUIET_S = 0.3  # how long a document must rest before the workspace-wide analysis runs
# The collection a cold analysis skipped (PausedCollector): once the fast worker has been idle
# this long, or before its next job once the collector has been paused this long.
SETTLE_IDLE_S = 0.25
SETTLE_MAX_S = 2.0
EXPLAIN_COMMAND = "pallas-lsp.explainError"
SHOW_LAUNCH_COMMAND = "pallas-lsp.showLaunch"


def uri_to_path(uri: str) -> str | None:
    p = urlparse(uri)
    if p.scheme != "file":
        return None
    path = unquote(p.path)
    if os.name == "nt" and path.startswith("/") and len(path) > 2 and path[2] == ":":
        path = path[1:]
    return path


# --- analysis worker ---------------------------------------------------------------------------
class Worker:
    """One daemon thread that runs analyses in order (a shutdown never waits for it). Given the
    server's :class:`PausedCollector`, it runs the collection a cold analysis skipped once it has
    had nothing to do for ``SETTLE_IDLE_S``, or before a job once that collection is overdue."""

    def __init__(self, collector: "PausedCollector | None" = None) -> None:
        self.q: queue.Queue = queue.Queue()
        self.collector = collector
        from ..analysis.module import start_thread  # (a stack the parser's nesting limits fit in)

        self.thread = start_thread(self._run, "pallas-analysis")

    def _run(self) -> None:
        collector = self.collector
        while True:
            try:
                owed = collector is not None and collector.owed
                fn, fut, loop = self.q.get(timeout=SETTLE_IDLE_S) if owed else self.q.get()
            except queue.Empty:
                collector.settle()  # type: ignore[union-attr]
                continue
            if collector is not None and collector.overdue:
                collector.settle()
            try:
                res = fn()
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine
                loop.call_soon_threadsafe(_set_exc, fut, exc)
            else:
                loop.call_soon_threadsafe(_set_result, fut, res)

    def submit(self, fn: Callable[[], Any]) -> asyncio.Future:
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self.q.put((fn, fut, loop))
        return fut


class OpenTexts:
    """The open documents' texts as the workspace worker reads them: a snapshot the event loop
    takes when it submits a job. The loop changes the live documents map at every keystroke;
    iterating it from the worker raised "dictionary changed size during iteration" and the
    workspace-wide result was silently lost."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}  # absolute path -> text; rebound per job, never changed

    def read(self, path: str) -> str | None:
        text = self.texts.get(os.path.abspath(path))
        if text is not None:
            return text
        from ..analysis.program import read_file

        return read_file(path)


class PausedCollector:
    """A document's first (cold) analysis builds every block's tree and index, about a million
    objects that live until it ends, and the cyclic collector rescanned them over and over (35-50%
    of the cold analysis of a 9,853-line file). So the collector is paused for that analysis and
    stays paused until the fast worker has had nothing to do for ``SETTLE_IDLE_S``; then one full
    collection runs and turns it back on. Turned on as the job ended, the next allocation (the
    diagnostics' own) paid a young-generation pass over all those objects (30 ms on that file)
    and the full collection after it held the interpreter lock while the loop waited to publish
    (30 ms more); run as soon as the result was written, it held up a keystroke typed right after
    the diagnostics came. Analyses that come meanwhile run with it paused, but never once it has
    been paused for ``SETTLE_MAX_S``: then the collection runs first (runtime.py).

    Only the fast worker's thread calls these, so they never race."""

    def __init__(self) -> None:
        self.owed = False  # a cold analysis paused the collector, and no collection ran since
        self.since = 0.0  # when (time.monotonic) it was paused

    def pause(self) -> None:
        """Before a cold analysis: pause the collector (unless something else already did)."""
        if gc.isenabled():
            gc.disable()
            self.owed, self.since = True, time.monotonic()

    @property
    def overdue(self) -> bool:
        return self.owed and time.monotonic() - self.since >= SETTLE_MAX_S

    def settle(self) -> None:
        """The collection the paused analyses skipped, then the collector on again."""
        if self.owed:
            self.owed = False
            gc.collect()
            gc.enable()


def _set_result(fut: asyncio.Future, res: Any) -> None:
    if not fut.done():
        fut.set_result(res)


def _set_exc(fut: asyncio.Future, exc: BaseException) -> None:
    if not fut.done():
        fut.set_exception(exc)


@dataclass
class Job:
    """A unit's module-alone analysis, queued or running on the fast worker."""

    gen: int
    fut: asyncio.Future  # the Analysed, or None when superseded before it started


@dataclass
class Analysed:
    """One analysis of a unit (a text document, or a notebook's code cells as one module)."""

    gen: int
    text: str
    result: AnalysisResult
    slices: list[CellSlice] | None  # notebooks: where each cell is in the joined text
    docs: dict[str, Document]  # frozen copies of the analysed documents
    unit: str
    partial: bool = False  # this module alone; the workspace-wide result is still coming
    diagnostics: dict[str, list[lsp.Diagnostic]] = field(default_factory=dict)
    what_if: dict = field(default_factory=dict)  # assumed interpret mode -> its analysis (made on request)

    def locate(self, line: int) -> Location | None:
        """Where a line of the analysed (joined) text lives."""
        from .convert import Location

        if self.slices is None:
            doc = self.docs.get(self.unit)
            return Location(doc, 0) if doc is not None else None
        hit = cell_of(self.slices, line)
        if hit is None:
            return None
        doc = self.docs.get(hit[0].uri)
        return Location(doc, hit[0].first_line - 1) if doc is not None else None


def diagnostics_of(a: Analysed, store: RecordStore, caps: "Caps") -> dict[str, list[lsp.Diagnostic]]:
    from .convert import to_diagnostic

    out: dict[str, list[lsp.Diagnostic]] = {uri: [] for uri in a.docs}
    for f in a.result.findings:
        rec = store.by_slug(f.record) if f.record else None
        href = rec.link if rec is not None and rec.link and caps.code_description else None  # https only
        got = to_diagnostic(f, a.locate, caps.encoding, related_support=caps.related, href=href, version=None)
        if got is not None:
            out.setdefault(got[0], []).append(got[1])
    return out


@dataclass
class Caps:
    """Client capabilities folded into plain booleans once."""

    pull: bool = False
    related: bool = False
    code_description: bool = False
    refresh: bool = False
    configuration: bool = False
    watch_dynamic: bool = False
    code_lens_refresh: bool = False
    show_document: bool = False
    encoding: str = UTF16


class PallasServer(LanguageServer):
    def report_server_error(self, error: Exception, source) -> None:
        """Log only: a malformed message from a client is not something to pop up to the user."""
        log.warning("protocol error (%s): %s", getattr(source, "__name__", source), error)

    def __init__(self) -> None:
        nb_sync = lsp.NotebookDocumentSyncOptions(
            notebook_selector=[lsp.NotebookDocumentFilterWithCells(
                notebook="*", cells=[lsp.NotebookCellLanguage(language="python")])],
            save=False,
        )
        super().__init__("pallas-lsp", __version__, protocol_cls=PallasProtocol,
                         text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
                         notebook_document_sync=nb_sync)
        self._engine: Engine | None = None  # created by warm_up (or on first use)
        self._engine_key: tuple = ()  # the detection sections its rule set was built from
        self._engine_lock = threading.Lock()
        self.docs: dict[str, Document] = {}
        self.notebooks: dict[str, Notebook] = {}
        self.gens: dict[str, int] = {}  # unit -> generation, bumped by every change
        self.analysed: dict[str, Analysed] = {}
        self.inflight: dict[str, Job] = {}  # unit -> its one module-alone analysis running or queued
        self.debounce: dict[str, asyncio.Task] = {}
        self.caps = Caps()
        self.settings = Settings()
        self.init_options: Any = None
        self._workers: dict[str, Worker] = {}  # started on first use (after `initialize`)
        self._stores: dict[tuple, RecordStore] = {}
        self.root: Path | None = None
        self.settings_gen = 0
        self.program = None  # analysis.program.Program over the workspace, once the root is known
        self.deps: dict[str, set[str]] = {}  # unit -> module paths its last analysis consulted
        self.open_texts = OpenTexts()  # what the workspace worker reads for open documents
        # unit -> set once the unit's current generation is superseded: how a worker, which never
        # reads the live maps, tells that a queued job is stale.
        self.stale_flags: dict[str, threading.Event] = {}
        self.collector = PausedCollector()  # paused for cold analyses; the fast worker settles it

    # --- workers and the engine, started after `initialize` ------------------------------
    @property
    def worker(self) -> Worker:
        """This module alone: fast, every keystroke."""
        return self._worker_named("fast")

    @property
    def workspace_worker(self) -> Worker:
        """Across the workspace: may take seconds when cold."""
        return self._worker_named("workspace")

    def _worker_named(self, name: str) -> Worker:
        w = self._workers.get(name)
        if w is None:
            w = self._workers[name] = Worker(self.collector if name == "fast" else None)
        return w

    @property
    def engine(self) -> Engine:
        """The analysis engine; keystrokes reuse its unchanged launches."""
        with self._engine_lock:
            if self._engine is None:
                from ..records import builtin_records
                from ..rules import default_engine
                from ..rules.data import detection_key

                records = builtin_records()[0]
                self._engine = default_engine(incremental=True, records=records)
                self._engine_key = detection_key(records)
            return self._engine

    def engine_for(self, store: RecordStore) -> Engine:
        """The engine whose rule set holds the built-in rules and the detection sections of
        ``store``'s records (a user's records file with one gets its own diagnostics)."""
        from ..rules.data import detection_key

        key = detection_key(store.records)
        engine = self.engine
        with self._engine_lock:
            if key == self._engine_key:
                return engine
            from ..rules import default_engine

            engine = default_engine(incremental=True, records=store.records)
            self._engine, self._engine_key = engine, key
            return engine

    def warm_up(self) -> None:
        """Once `initialize` is answered: import the engine, the rules and the records on the
        fast worker, so the first document's analysis finds them loaded and the client's first
        request did not wait for them."""
        def warm() -> RecordStore:
            from .. import explain, present  # noqa: F401 - imported for hovers and lenses
            from ..records import default_store
            from . import convert  # noqa: F401

            from ..runtime import tune_gc

            self.engine  # noqa: B018 - creates it
            store = default_store()
            tune_gc(batch=False)  # the analysis modules are imported now: freeze them too
            return store

        def done(fut: asyncio.Future) -> None:
            if fut.cancelled() or fut.exception() is not None:
                log.error("warming up failed: %r", None if fut.cancelled() else fut.exception())
            elif not self._stores:  # the store for no extra records, unless one was built meanwhile
                self._stores = {(): fut.result()}
            self._warm_converter()

        self.worker.submit(warm).add_done_callback(done)

    def _warm_converter(self) -> None:
        """On the loop, while the first document is analysed: have the converter build its
        functions for diagnostics (cattrs makes one per type when first asked, ~2 ms), so the
        first finding published is not the one that pays for them."""
        from .convert import SOURCE

        r = lsp.Range(lsp.Position(0, 0), lsp.Position(0, 1))
        d = lsp.Diagnostic(range=r, message="", severity=lsp.DiagnosticSeverity.Error, code="PAL000", source=SOURCE,
                           code_description=lsp.CodeDescription(href="https://example.invalid"),
                           related_information=[lsp.DiagnosticRelatedInformation(lsp.Location("file:///", r), "")],
                           data={})
        try:
            conv = self.protocol._converter
            conv.unstructure(lsp.PublishDiagnosticsParams(uri="file:///", diagnostics=[d], version=0))
            conv.unstructure(lsp.RelatedFullDocumentDiagnosticReport(items=[d], result_id="0"))
        except Exception:  # noqa: BLE001 - an optimisation only
            log.debug("warming the converter up failed", exc_info=True)

    # --- units ----------------------------------------------------------------------------
    def unit_of(self, uri: str) -> str:
        doc = self.docs.get(uri)
        return doc.notebook if doc is not None and doc.notebook else uri

    def uris_of(self, unit: str) -> list[str]:
        nb = self.notebooks.get(unit)
        return list(nb.cells) if nb is not None else [unit]

    def bump(self, unit: str) -> int:
        self.gens[unit] = self.gens.get(unit, 0) + 1
        self.supersede(unit)
        return self.gens[unit]

    def supersede(self, unit: str) -> None:
        """The unit's text changed (or it closed): jobs for its earlier generations are stale."""
        flag = self.stale_flags.pop(unit, None)
        if flag is not None:
            flag.set()

    def stale_flag(self, unit: str) -> threading.Event:
        """Set once the unit's current generation is superseded (read by the workers)."""
        flag = self.stale_flags.get(unit)
        if flag is None:
            flag = self.stale_flags[unit] = threading.Event()
        return flag

    # --- configuration ----------------------------------------------------------------------
    def config_for(self, unit: str) -> Config:
        """The unit's settings: its pyproject.toml's over the editor's, each one's rules checked
        against the rule set of the records both name (a team's records declare rules that
        ``select`` may name, whichever of the two names them)."""
        path = uri_to_path(unit)
        base = Config(select=self.settings.select, ignore=self.settings.ignore,
                      records=tuple(self.settings.records), backends=self.settings.backends)
        cfg = Config()
        if path is not None:
            try:
                cfg = find_config(path, stop_at=self.root)
            except Exception:  # noqa: BLE001 - a broken config never stops analysis
                log.exception("reading config for %s", path)
        rules = self.engine_for(self.store_for(cfg.merged(base))).rules
        cfg = with_known_rules(cfg, rules).merged(with_known_rules(base, rules, "pallas-lsp setting"))
        for p in cfg.problems:
            self.notify_problem(p)
        return cfg

    def store_for(self, cfg: Config) -> RecordStore:
        key = tuple(sorted(cfg.records))
        mtimes = []
        for r in key:
            try:
                mtimes.append(os.stat(r).st_mtime_ns)
            except OSError:
                mtimes.append(0)
        full = key + tuple(mtimes)
        store = self._stores.get(full)
        if store is None:
            from ..records import default_store

            store = default_store()
            for r in key:
                if not Path(r).exists():
                    self.notify_problem(f"records file not found: {r}")
                    continue
                for prob in store.add_path(r):
                    self.notify_problem(f"bad record file: {prob}")
            self._stores = {full: store}
        return store

    _told: set[str] = set()

    def notify_problem(self, message: str) -> None:
        if message in self._told:
            return
        self._told.add(message)
        log.warning(message)
        try:
            self.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Warning, f"pallas-lsp: {message}"))
        except Exception:  # noqa: BLE001 - before initialize there is no client to tell
            pass

    def apply_settings(self, obj: Any) -> None:
        new, problems = parse_settings(obj, self.settings)
        for p in problems:
            self.notify_problem(p)
        if new != self.settings:
            self.settings = new
            self.settings_gen += 1
            logging.getLogger("pallas_lsp").setLevel(
                {"error": logging.ERROR, "warning": logging.WARNING, "info": logging.INFO,
                 "debug": logging.DEBUG}[new.log_level])

    # --- analysis ---------------------------------------------------------------------------
    def snapshot(self, unit: str) -> tuple[str, list[CellSlice] | None, dict[str, Document]] | None:
        """The unit's text and frozen copies of its documents, taken on the event loop, so the
        worker converts positions against exactly the text it analysed."""
        nb = self.notebooks.get(unit)
        if nb is not None:
            text, slices = join_cells(nb, self.docs)
            docs = {s.uri: self.docs[s.uri].copy() for s in slices if s.uri in self.docs}
            return text, slices, docs
        doc = self.docs.get(unit)
        if doc is None:
            return None
        return doc.text, None, {unit: doc.copy()}

    async def ensure(self, unit: str) -> Analysed | None:
        """The analysis of the unit's current text (computed now if needed).

        At most one analysis of a unit runs at a time. Changes made while it runs only make it
        stale; when it ends, the newest text is analysed, never the versions typed in between
        (latest version wins), so typing fast queues no work and needs no debounce."""
        while True:
            gen = self.gens.get(unit, 0)
            have = self.analysed.get(unit)
            if have is not None and have.gen == gen:
                return have
            job = self.inflight.get(unit)
            if job is None:
                job = self.start_analysis(unit, gen)
                if job is None:
                    return None
            if job.gen == gen:
                a = await asyncio.shield(job.fut)
                if a is not None:
                    return a
                # None: superseded before the worker got to it; analyse the newest text.
            else:
                # An earlier version is being analysed: let it end, then analyse the newest.
                await asyncio.wait([job.fut])

    def start_analysis(self, unit: str, gen: int) -> Job | None:
        """Queue the module-alone analysis of the unit's current text (generation ``gen``)."""
        snap = self.snapshot(unit)
        if snap is None:
            return None
        text, slices, docs = snap
        cfg = self.config_for(unit)
        store = self.store_for(cfg)
        path = uri_to_path(unit) or unit
        prev = self.analysed.get(unit)
        caps = replace(self.caps)
        stale = self.stale_flag(unit)
        program = self.program_for(unit)
        limit = self.settings.max_file_bytes
        if len(text) > limit:
            program = None

        engine = self.engine_for(store)
        collector = self.collector

        def work() -> Analysed | None:
            # Phase 1, on the fast worker: this module on its own (milliseconds, every keystroke).
            # Only what was captured above: the loop changes the live maps meanwhile.
            if stale.is_set():
                return None  # the text changed while this waited in the queue
            if len(text) > limit:
                result = too_large(text, path, limit)
                a = Analysed(gen, text, result, slices, docs, unit)
                a.diagnostics = diagnostics_of(a, store, caps)
                return a
            if prev is None:
                collector.pause()  # (the worker turns it on again: PausedCollector)
            result = engine.analyse(text, path, select=cfg.select, ignore=cfg.ignore,
                                    backends=cfg.backends or ())
            if result.syntax_errors and prev is not None:
                _carry_over(prev, result, text)
            a = Analysed(gen, text, result, slices, docs, unit, partial=program is not None)
            a.diagnostics = diagnostics_of(a, store, caps)
            return a

        job = Job(gen, self.worker.submit(work))
        self.inflight[unit] = job

        def done(fut: asyncio.Future) -> None:
            if self.inflight.get(unit) is job:
                del self.inflight[unit]
            if fut.cancelled() or fut.exception() is not None:
                return  # whoever awaits it reports the error
            a = fut.result()
            if a is None or unit not in self.gens:  # superseded, or closed meanwhile
                return
            have = self.analysed.get(unit)
            if have is None or have.gen <= a.gen:
                self.analysed[unit] = a
            if program is not None and self.gens.get(unit) == gen:
                self.follow_workspace(unit, gen, program, path, text, slices, docs, cfg, store)

        job.fut.add_done_callback(done)
        return job

    def follow_workspace(self, unit, gen, program, path, text, slices, docs, cfg, store) -> None:
        """Phase 2, on the workspace worker: the same module with imports, importers and callers
        across the workspace followed (jedi and other modules: possibly seconds when cold). Its
        result replaces phase 1's when the document has not moved on, and clients are told."""
        caps = replace(self.caps)
        prev = self.analysed.get(unit)
        stale = self.stale_flag(unit)
        engine = self.engine_for(store)

        def work() -> tuple[Analysed, set[str]] | None:
            # Runs on the workspace worker: only what was captured here, never the live maps.
            if stale.is_set():
                return None  # superseded while queued
            program.reset_accessed()
            result = engine.analyse_in(program, path, select=cfg.select, ignore=cfg.ignore,
                                       backends=cfg.backends or ())
            deps = program.reset_accessed()
            if result.syntax_errors and prev is not None:
                _carry_over(prev, result, text)
            a = Analysed(gen, text, result, slices, docs, unit)
            a.diagnostics = diagnostics_of(a, store, caps)
            return a, deps

        async def finish() -> None:
            # Only once typing pauses: a burst of keystrokes would only queue work that the next
            # keystroke makes stale, and it would compete with the module-alone analyses.
            await asyncio.sleep(WORKSPACE_QUIET_S)
            if self.gens.get(unit, 0) != gen:
                return
            try:
                got = await self.submit_workspace(work)
            except Exception:  # noqa: BLE001
                log.exception("workspace analysis of %s failed", unit)
                return
            if got is None:
                return
            a, self.deps[unit] = got
            if self.gens.get(unit, 0) != gen:
                return
            self.analysed[unit] = a
            if self.caps.pull:
                if self.caps.refresh:
                    self.workspace_diagnostic_refresh(None)
            else:
                self.publish(unit, a)

        asyncio.ensure_future(finish())

    def program_for(self, unit: str):
        """The workspace program, for a file inside the workspace (notebooks and files elsewhere
        are analysed on their own)."""
        if not self.settings.cross_module or self.root is None or unit in self.notebooks:
            return None
        path = uri_to_path(unit)
        if path is None:
            return None
        if self.program is None:
            from ..analysis.program import Program

            self.program = Program(self.root, read=self.open_texts.read,
                                   environment=self.settings.python_environment)
        return self.program if self.program.contains(path) else None

    async def what_if_results(self, a: Analysed) -> dict:
        """The what-if analyses of an analysed text (``assume_interpret``), one per interpret mode
        its compiled launches fit; made on the fast worker when first asked for, kept with it."""
        from ..what_if import fitting_modes

        if a.slices is not None:
            return {}  # (notebooks: not yet)
        modes = sorted({m for launch in a.result.launches for m in fitting_modes(launch)})
        todo = [m for m in modes if m not in a.what_if]
        if todo:
            from ..analysis.engine import Engine

            batch = Engine(self.engine.rules)  # keeps nothing between requests
            text, path = a.text, uri_to_path(a.unit)

            def work() -> dict:
                return {m: batch.analyse(text, path, assume_interpret=m) for m in todo}

            a.what_if.update(await self.worker.submit(work))
        return a.what_if

    def submit_workspace(self, fn: Callable[[], Any]) -> asyncio.Future:
        """Run ``fn`` on the workspace worker, reading the open documents as they are now: the
        snapshot is taken here, on the event loop, and handed to the worker with the job."""
        texts = {p: d.text for p, d in self.open_paths.items()}
        reader = self.open_texts

        def job() -> Any:
            reader.texts = texts
            return fn()

        return self.workspace_worker.submit(job)

    @property
    def open_paths(self) -> dict[str, Document]:
        out = {}
        for uri, d in self.docs.items():
            if d.notebook is None:
                p = uri_to_path(uri)
                if p:
                    out[os.path.abspath(p)] = d
        return out

    def module_changed(self, path: str) -> None:
        """A workspace module changed (edited or on disk): forget it and re-analyse the open
        documents whose last analysis consulted it (and only those)."""
        path = os.path.abspath(path)
        if self.program is not None:
            program = self.program
            self.submit_workspace(lambda: program.forget(path))
        for uri in list(self.docs):
            unit = self.unit_of(uri)
            if unit in self.notebooks or uri_to_path(unit) == path:
                continue
            if path in self.deps.get(unit, set()):
                self.bump(unit)
                self.schedule(unit)
                self.pending_refresh = True

    pending_refresh = False

    def schedule(self, unit: str) -> None:
        """Push clients: re-analyse after the debounce and publish; pull clients ask themselves."""
        if self.caps.pull:
            return
        old = self.debounce.pop(unit, None)
        if old is not None:
            old.cancel()
        self.debounce[unit] = asyncio.ensure_future(self._debounced(unit))

    async def _debounced(self, unit: str) -> None:
        try:
            delay = self.settings.debounce_ms / 1000
            if delay:
                await asyncio.sleep(delay)
            a = await self.ensure(unit)
            if a is None or a.gen != self.gens.get(unit, 0):
                return  # the document moved on: a newer analysis will publish
            self.publish(unit, a)
        except asyncio.CancelledError:
            pass
        except Exception:  # noqa: BLE001
            log.exception("analysis of %s failed", unit)

    def publish(self, unit: str, a: Analysed) -> None:
        for uri in self.uris_of(unit) if unit in self.notebooks else [unit]:
            doc = self.docs.get(uri)
            if doc is None:
                continue
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
                uri=uri, diagnostics=a.diagnostics.get(uri, []), version=doc.version))

    def refresh_all(self) -> None:
        """Settings, records or config changed: re-analyse every open unit."""
        units = {self.unit_of(u) for u in self.docs}
        for unit in units:
            self.bump(unit)
        if self.caps.pull:
            if self.caps.refresh:
                try:
                    self.workspace_diagnostic_refresh(None)
                except Exception:  # noqa: BLE001
                    log.exception("diagnostic refresh")
        else:
            for unit in units:
                self.schedule(unit)
        if self.caps.code_lens_refresh:
            try:
                self.workspace_code_lens_refresh(None)
            except Exception:  # noqa: BLE001
                log.exception("code lens refresh")

    # --- lookups for requests ---------------------------------------------------------------
    def engine_pos(self, uri: str, pos: lsp.Position, a: Analysed) -> tuple[int, int] | None:
        doc = a.docs.get(uri)
        if doc is None:
            return None
        line, col = doc.engine_position(pos.line, pos.character, self.caps.encoding)
        if a.slices is not None:
            cell = next((s for s in a.slices if s.uri == uri), None)
            if cell is None:
                return None
            line += cell.first_line - 1
        return line, col

    def store(self, unit: str) -> RecordStore:
        return self.store_for(self.config_for(unit))


def too_large(text: str, path: str, limit: int) -> AnalysisResult:
    """A document over the size limit: one information diagnostic, no analysis."""
    from ..analysis.engine import AnalysisResult, LaunchList
    from ..analysis.findings import Finding, Severity
    from ..analysis.module import ModuleIndex, Span

    index = ModuleIndex("", path)
    mb = len(text) / 1e6
    f = Finding("PAL903", "file-too-large", None, Severity.INFORMATION,
                f"pallas-lsp does not analyse this file: {mb:.1f} MB is over the {limit / 1e6:.1f} MB limit "
                f"(setting maxFileBytes)", Span(1, 0, 1, 0))
    return AnalysisResult(path, [f], LaunchList([], index), index)


def _carry_over(prev: Analysed, result: AnalysisResult, text: str) -> None:
    """Mid-edit, a block that no longer parses would lose its findings: keep the previous
    findings whose line is still there, unchanged, inside a broken block."""
    from ..analysis.findings import Finding
    from ..analysis.module import Span

    broken: list[tuple[int, int]] = []
    for block, bp in result.index.parses:
        if bp.error is not None:
            broken.append((block.start_line, block.end_line))
    if not broken:
        return
    old_lines = prev.text.splitlines()
    new_lines = text.splitlines()
    have = {(f.code, f.span.line) for f in result.findings}
    kept: list[Finding] = []
    for f in prev.result.findings:
        if f.record is None or not 0 < f.span.line <= len(old_lines):
            continue
        old = old_lines[f.span.line - 1]
        matches = [i + 1 for lo, hi in broken for i in range(lo - 1, min(hi, len(new_lines)))
                   if new_lines[i] == old]
        if len(matches) != 1:
            continue
        delta = matches[0] - f.span.line
        if (f.code, matches[0]) in have:
            continue
        from dataclasses import replace

        moved = replace(f, span=Span(f.span.line + delta, f.span.col, f.span.end_line + delta, f.span.end_col),
                        related=tuple(r for r in f.related), fix_builder=None, extra={**f.extra, "carried": True})
        kept.append(moved)
    if kept:
        result.findings.extend(kept)
        result.findings.sort(key=Finding.sort_key)


server = PallasServer()


def _guard(default: Any = None):
    """A handler that fails logs the error and answers (the server never dies on a document)."""

    def deco(fn):
        if asyncio.iscoroutinefunction(fn):
            async def wrapped(*args, **kwargs):
                try:
                    return await fn(*args, **kwargs)
                except asyncio.CancelledError:
                    raise
                except Exception:  # noqa: BLE001
                    log.error("%s failed:\n%s", fn.__name__, traceback.format_exc())
                    return default
        else:
            def wrapped(*args, **kwargs):
                try:
                    return fn(*args, **kwargs)
                except Exception:  # noqa: BLE001
                    log.error("%s failed:\n%s", fn.__name__, traceback.format_exc())
                    return default
        wrapped.__name__ = fn.__name__
        wrapped.__wrapped__ = fn
        return wrapped

    return deco


# --- lifecycle ---------------------------------------------------------------------------------
@server.feature(lsp.INITIALIZE)
@_guard()
def initialize(params: lsp.InitializeParams) -> None:
    caps = params.capabilities
    td = caps.text_document
    ws = caps.workspace
    c = server.caps
    c.pull = bool(td and td.diagnostic)
    c.related = bool(td and td.publish_diagnostics and td.publish_diagnostics.related_information) or c.pull
    c.code_description = bool(td and td.publish_diagnostics and td.publish_diagnostics.code_description_support) \
        or c.pull
    c.refresh = bool(ws and ws.diagnostics and ws.diagnostics.refresh_support)
    c.configuration = bool(ws and ws.configuration)
    c.watch_dynamic = bool(ws and ws.did_change_watched_files and ws.did_change_watched_files.dynamic_registration)
    c.code_lens_refresh = bool(ws and ws.code_lens and ws.code_lens.refresh_support)
    c.show_document = bool(caps.window and caps.window.show_document and caps.window.show_document.support)
    root = params.root_uri or (params.workspace_folders[0].uri if params.workspace_folders else None)
    if root:
        p = uri_to_path(root)
        server.root = Path(p) if p else None
    server.init_options = params.initialization_options
    server.apply_settings(params.initialization_options)
    try:  # once the answer is written (it is, before the loop runs anything else)
        asyncio.get_running_loop().call_soon(server.warm_up)
    except RuntimeError:  # no loop (called directly): warm up now
        server.warm_up()


@server.feature(lsp.INITIALIZED)
@_guard()
async def initialized(params: lsp.InitializedParams) -> None:
    enc = server.workspace.position_encoding
    server.caps.encoding = str(getattr(enc, "value", enc) or UTF16)
    log.info("pallas-lsp %s: encoding %s, %s diagnostics", __version__, server.caps.encoding,
             "pull" if server.caps.pull else "push")
    if server.caps.watch_dynamic:
        watchers = [lsp.FileSystemWatcher(glob_pattern="**/pyproject.toml"),
                    lsp.FileSystemWatcher(glob_pattern="**/*.json"),
                    lsp.FileSystemWatcher(glob_pattern="**/*.py")]
        try:
            await server.client_register_capability_async(lsp.RegistrationParams(registrations=[
                lsp.Registration(id="pallas-lsp-watch", method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                 register_options=lsp.DidChangeWatchedFilesRegistrationOptions(watchers))]))
        except Exception:  # noqa: BLE001
            log.exception("registering file watchers")
    await pull_configuration()


async def pull_configuration() -> None:
    if not server.caps.configuration:
        return
    try:
        got = await asyncio.wait_for(server.workspace_configuration_async(lsp.ConfigurationParams(
            items=[lsp.ConfigurationItem(section="pallasLsp")])), timeout=5)
    except Exception:  # noqa: BLE001 - a client that does not answer keeps the current settings
        log.info("workspace/configuration not answered")
        return
    if got and isinstance(got[0], dict):
        before = server.settings_gen
        server.apply_settings(got[0])
        if server.settings_gen != before:
            server.refresh_all()


@server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
@_guard()
async def did_change_configuration(params: lsp.DidChangeConfigurationParams) -> None:
    before = server.settings_gen
    s = params.settings
    if isinstance(s, dict) and ("pallasLsp" in s or any(k in s for k in ("select", "ignore", "debounceMs"))):
        server.apply_settings(s)
    else:
        await pull_configuration()
    if server.settings_gen != before:
        server.refresh_all()


@server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
@_guard()
def did_change_watched_files(params: lsp.DidChangeWatchedFilesParams) -> None:
    config_changed = False
    if server.program is not None and any(ch.type in (lsp.FileChangeType.Created, lsp.FileChangeType.Deleted)
                                          and ch.uri.endswith(".py") for ch in params.changes):
        program = server.program
        server.submit_workspace(program.files_changed)
    for ch in params.changes:
        p = uri_to_path(ch.uri)
        if p and p.endswith(".py"):
            if os.path.abspath(p) not in server.open_paths:
                server.module_changed(p)
        else:
            config_changed = True
    if config_changed:
        server._stores.clear()
        server._told.clear()
        server.refresh_all()
    elif server.caps.pull and server.pending_refresh and server.caps.refresh:
        server.pending_refresh = False
        server.workspace_diagnostic_refresh(None)


# --- text documents --------------------------------------------------------------------------
@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
@_guard()
def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
    td = params.text_document
    if td.uri in server.docs and server.docs[td.uri].notebook:
        return
    server.docs[td.uri] = Document(td.uri, td.text, td.version, td.language_id)
    server.bump(td.uri)
    server.schedule(td.uri)
    if (p := uri_to_path(td.uri)) and server.program is not None:
        server.module_changed(p)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
@_guard()
def did_change(params: lsp.DidChangeTextDocumentParams) -> None:
    doc = server.docs.get(params.text_document.uri)
    if doc is None:
        log.warning("didChange for a document that is not open: %s", params.text_document.uri)
        return
    v = params.text_document.version
    if v is not None and doc.version is not None and v < doc.version:
        log.warning("didChange version %s is older than %s for %s; applied anyway", v, doc.version, doc.uri)
    for ch in params.content_changes:
        doc.apply_change(getattr(ch, "range", None), ch.text, server.caps.encoding)
    doc.version = v
    unit = server.unit_of(doc.uri)
    server.bump(unit)
    server.schedule(unit)
    if doc.notebook is None and (p := uri_to_path(doc.uri)):
        server.module_changed(p)
        if server.caps.pull and server.pending_refresh and server.caps.refresh:
            server.pending_refresh = False
            server.workspace_diagnostic_refresh(None)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
@_guard()
def did_close(params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    doc = server.docs.get(uri)
    if doc is None or doc.notebook:
        return
    del server.docs[uri]
    server.engine.forget(uri_to_path(uri) or uri)
    if (p := uri_to_path(uri)) and server.program is not None:
        server.module_changed(p)  # back to the text on disk
    server.analysed.pop(uri, None)
    server.gens.pop(uri, None)
    server.supersede(uri)
    t = server.debounce.pop(uri, None)
    if t is not None:
        t.cancel()
    if not server.caps.pull:
        server.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


# --- notebooks ----------------------------------------------------------------------------------
def _open_cells(nb: Notebook, cells: list[lsp.TextDocumentItem]) -> None:
    for c in cells:
        d = Document(c.uri, c.text, c.version, c.language_id)
        d.notebook = nb.uri
        server.docs[c.uri] = d


@server.feature(lsp.NOTEBOOK_DOCUMENT_DID_OPEN)
@_guard()
def notebook_did_open(params: lsp.DidOpenNotebookDocumentParams) -> None:
    nd = params.notebook_document
    nb = Notebook(nd.uri, nd.version, [c.document for c in nd.cells], {c.document: int(c.kind) for c in nd.cells})
    server.notebooks[nd.uri] = nb
    _open_cells(nb, params.cell_text_documents)
    server.bump(nd.uri)
    server.schedule(nd.uri)


@server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CHANGE)
@_guard()
def notebook_did_change(params: lsp.DidChangeNotebookDocumentParams) -> None:
    nb = server.notebooks.get(params.notebook_document.uri)
    if nb is None:
        return
    nb.version = params.notebook_document.version
    ch = params.change
    if ch.cells is not None:
        st = ch.cells.structure
        if st is not None:
            arr = st.array
            new_cells = [c.document for c in (arr.cells or [])]
            for c in arr.cells or []:
                nb.kinds[c.document] = int(c.kind)
            removed = nb.cells[arr.start:arr.start + arr.delete_count]
            nb.cells[arr.start:arr.start + arr.delete_count] = new_cells
            for c in st.did_close or []:
                server.docs.pop(c.uri, None)
                if not server.caps.pull and c.uri in removed:
                    server.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=c.uri, diagnostics=[]))
            _open_cells(nb, st.did_open or [])
        for c in ch.cells.data or []:
            nb.kinds[c.document] = int(c.kind)
        for tc in ch.cells.text_content or []:
            doc = server.docs.get(tc.document.uri)
            if doc is None:
                continue
            for change in tc.changes:
                doc.apply_change(getattr(change, "range", None), change.text, server.caps.encoding)
            doc.version = tc.document.version
    server.bump(nb.uri)
    server.schedule(nb.uri)


@server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CLOSE)
@_guard()
def notebook_did_close(params: lsp.DidCloseNotebookDocumentParams) -> None:
    nb = server.notebooks.pop(params.notebook_document.uri, None)
    for c in params.cell_text_documents:
        server.docs.pop(c.uri, None)
    if nb is not None:
        server.engine.forget(uri_to_path(nb.uri) or nb.uri)
        server.analysed.pop(nb.uri, None)
        server.gens.pop(nb.uri, None)
        server.supersede(nb.uri)


# --- diagnostics (pull) ----------------------------------------------------------------------------
@server.feature(lsp.TEXT_DOCUMENT_DIAGNOSTIC,
                lsp.DiagnosticOptions(identifier="pallas-lsp", inter_file_dependencies=True,
                                      workspace_diagnostics=False))
@_guard(lsp.RelatedFullDocumentDiagnosticReport(items=[]))
async def pull_diagnostics(params: lsp.DocumentDiagnosticParams):
    uri = params.text_document.uri
    if uri not in server.docs:
        return lsp.RelatedFullDocumentDiagnosticReport(items=[])
    unit = server.unit_of(uri)
    a = await server.ensure(unit)
    if a is None:
        return lsp.RelatedFullDocumentDiagnosticReport(items=[])
    result_id = f"{a.gen}.{server.settings_gen}.{'p' if a.partial else 'f'}"
    if params.previous_result_id == result_id:
        return lsp.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    return lsp.RelatedFullDocumentDiagnosticReport(items=a.diagnostics.get(uri, []), result_id=result_id)


# --- hover ---------------------------------------------------------------------------------------
def _jax_version() -> str | None:
    from ..environment import workspace_jax_version

    return workspace_jax_version(server.settings.python_environment, server.root)


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
@_guard()
async def hover(params: lsp.HoverParams) -> lsp.Hover | None:
    from ..present import finding_hover, interpret_hover, launch_hover
    from .convert import to_range

    uri = params.text_document.uri
    if uri not in server.docs:
        return None
    unit = server.unit_of(uri)
    a = await server.ensure(unit)
    if a is None:
        return None
    pos = server.engine_pos(uri, params.position, a)
    if pos is None:
        return None
    line, col = pos
    locate = a.locate
    store = server.store(unit)
    # Every finding at the position (two kinds may name one construct: a built-in one and a
    # user's record), each with its own record's words.
    here = [f for f in a.result.findings if f.span.contains(line, col) and locate(f.span.line) is not None]
    if here:
        first = here[0]
        loc = locate(first.span.line)
        assert loc is not None
        md = "\n---\n\n".join(finding_hover(f, store, env_jax=_jax_version()) for f in here[:4])
        return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, md), to_range(first.span, loc, server.caps.encoding))
    for launch in a.result.launches:
        opt = launch.options.get("interpret")
        if opt is not None:
            sp = a.result.index.span(opt[0], opt[1])
            if sp.contains(line, col) or (sp.line == line and sp.col - len("interpret=") <= col <= sp.end_col):
                md = interpret_hover(launch, sp.line)
                loc = locate(sp.line)
                if md and loc is not None:
                    return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, md),
                                     to_range(sp, loc, server.caps.encoding))
        if launch.anchor.contains(line, col):
            loc = locate(launch.anchor.line)
            if loc is None:
                continue
            return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, launch_hover(a.result, launch)),
                             to_range(launch.anchor, loc, server.caps.encoding))
    return None


# --- code actions ----------------------------------------------------------------------------------
def _finding_for(a: Analysed, unit: str, uri: str, d: lsp.Diagnostic) -> Finding | None:
    """The finding a client's diagnostic stands for (for clients that drop ``data``)."""
    pos = server.engine_pos(uri, d.range.start, a)
    if pos is None:
        return None
    for f in a.result.findings:
        if f.code == d.code and (f.span.line, f.span.col) == pos:
            return f
    for f in a.result.findings:
        if f.code == d.code and f.span.line == pos[0]:
            return f
    return None


@server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL_KIND,
                                                         lsp.CodeActionKind.RefactorRewrite],
                                      resolve_provider=False))
@_guard([])
async def code_action(params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    from ..analysis.fixes import choose_fixes, offered_preferred, offered_title, suppression_fix
    from .convert import fix_payload, payload_to_edit

    uri = params.text_document.uri
    if uri not in server.docs:
        return []
    unit = server.unit_of(uri)
    a = await server.ensure(unit)
    if a is None:
        return []
    only = params.context.only or []
    actions: list[lsp.CodeAction] = []
    want_fix_all = any(str(k).startswith("source.fixAll") or str(k) == "source" for k in only)
    want_quick = not only or any(str(k).startswith("quickfix") for k in only)
    locate = a.locate
    s = server.settings
    if want_quick:
        for d in params.context.diagnostics:
            if d.source != "pallas-lsp":
                continue
            # (Built from the analysis, never from the diagnostic's data: a client may send any edit there.)
            f = _finding_for(a, unit, uri, d)
            if s.fix_actions and f is not None:
                for fx in _offered(a, f):
                    p = fix_payload(fx, locate, server.caps.encoding)
                    if p is not None:
                        actions.append(lsp.CodeAction(
                            title=offered_title(fx), kind=lsp.CodeActionKind.QuickFix, diagnostics=[d],
                            is_preferred=offered_preferred(fx, unsafe=s.unsafe_fixes), edit=payload_to_edit(p)))
            if s.ignore_comment_actions and f is not None:
                loc = locate(f.span.line)
                if loc is not None:
                    line_text = loc.doc.line(f.span.line - loc.delta - 1)
                    fx = suppression_fix(line_text, f.span.line, f)
                    p = fix_payload(fx, locate, server.caps.encoding)
                    if p is not None:
                        actions.append(lsp.CodeAction(title=p["title"], kind=lsp.CodeActionKind.QuickFix,
                                                      diagnostics=[d], is_preferred=False, edit=payload_to_edit(p)))
    if want_fix_all and s.fix_actions:
        # What `check --fix` applies in one pass (with `unsafeFixes`, what `--unsafe-fixes` adds).
        edits: dict[str, list] = {}
        path = uri_to_path(a.unit)
        for fx in choose_fixes(a.result.findings, path, unsafe=s.unsafe_fixes, fixes_of=lambda f: _offered(a, f)):
            p = fix_payload(fx, locate, server.caps.encoding)
            for u, es in (p["edits"] if p is not None else {}).items():
                edits.setdefault(u, []).extend(e for e in es if e not in edits.get(u, ()))
        if edits:
            actions.append(lsp.CodeAction(title="Fix all pallas-lsp problems", kind=FIX_ALL_KIND,
                                          edit=payload_to_edit({"edits": edits})))
    if s.what_if and server.config_for(unit).what_if is not False \
            and (not only or any(str(k).startswith("refactor") for k in only)):
        actions += await _debug_on_cpu_actions(a, uri, params.range)
    return actions


async def _debug_on_cpu_actions(a: Analysed, uri: str, rng: lsp.Range) -> list[lsp.CodeAction]:
    """"Debug on CPU": a compiled launch on the requested lines rewritten to the interpret mode
    that fits it together with the fixes that make it run there; offered only when the result
    has no blocker left (checked by analysing it)."""
    from ..analysis.engine import Engine
    from ..what_if import MODE_LABEL, debug_on_cpu, fitting_modes

    if a.slices is not None:
        return []
    live = server.docs.get(uri)
    if live is None or live.text != a.text:
        return []  # (the document moved on: the next request gets the new analysis)
    path = uri_to_path(a.unit)
    out = []
    for launch in a.result.launches:
        line = launch.anchor.line - 1
        if not (rng.start.line <= line <= rng.end.line):
            continue
        for mode in fitting_modes(launch):
            batch = Engine(server.engine.rules)
            text = a.text
            rewrite = await server.worker.submit(lambda m=mode: debug_on_cpu(batch, text, path, launch.line, m))
            if rewrite.text is None:
                continue
            edit = _whole_lines_edit(text, rewrite.text, server.caps.encoding)
            out.append(lsp.CodeAction(title=f"Debug on CPU: launch in {MODE_LABEL[mode]} mode with the fixes it needs",
                                      kind=lsp.CodeActionKind.RefactorRewrite,
                                      edit=lsp.WorkspaceEdit(changes={uri: [edit]})))
    return out


def _whole_lines_edit(old: str, new: str, encoding: str) -> lsp.TextEdit:
    """One edit replacing the lines that differ (the common first and last lines kept), so the
    client keeps its cursor and folds elsewhere. Whole lines: no column to encode."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a, end_b = end_a - 1, end_b - 1
    if end_a == len(a) and a and not a[-1].endswith(("\n", "\r")):
        # (the last line has no line break: replace to the end of it)
        from .positions import to_units

        last = a[-1]
        end = lsp.Position(len(a) - 1, to_units(last, len(last), encoding))
        return lsp.TextEdit(lsp.Range(lsp.Position(start, 0), end), "".join(b[start:end_b]))
    return lsp.TextEdit(lsp.Range(lsp.Position(start, 0), lsp.Position(end_a, 0)), "".join(b[start:end_b]))


def _offered(a: Analysed, f: Finding | None) -> list:
    """The finding's fixes, built now (on request), less any whose edited text would not parse
    (judged on the blocks the edits touch)."""
    from ..analysis.cst_edits import edits_parse

    if f is None:
        return []
    index = a.result.index
    return [fx for fx in f.fixes if edits_parse(index.text, index.blocks, fx.edits)]


# --- code lens -----------------------------------------------------------------------------------
@server.feature(lsp.TEXT_DOCUMENT_CODE_LENS, lsp.CodeLensOptions(resolve_provider=False))
@_guard([])
async def code_lens(params: lsp.CodeLensParams) -> list[lsp.CodeLens]:
    from ..present import launch_lens_title, problems_of
    from .convert import to_range

    uri = params.text_document.uri
    if not server.settings.code_lens or uri not in server.docs:
        return []
    unit = server.unit_of(uri)
    a = await server.ensure(unit)
    if a is None:
        return []
    locate = a.locate
    lenses = []
    for launch in a.result.launches:
        loc = locate(launch.anchor.line)
        if loc is None or loc.doc.uri != uri:
            continue
        title = launch_lens_title(launch, len(problems_of(a.result, launch)))
        rng = to_range(launch.anchor, loc, server.caps.encoding)
        chain = launch_chain(a, launch, server.caps.encoding)
        # Arguments as VS Code's editor.action.showReferences takes them: the launch, where to
        # peek from, and the context chain (the client converts them to its own types).
        lenses.append(lsp.CodeLens(range=rng, command=lsp.Command(
            title=title, command=SHOW_LAUNCH_COMMAND,
            arguments=[uri, {"line": rng.start.line, "character": rng.start.character}, chain])))
    if server.settings.what_if and server.config_for(unit).what_if is not False:
        lenses += await _what_if_lenses(a, uri)
    return lenses


async def _what_if_lenses(a: Analysed, uri: str) -> list[lsp.CodeLens]:
    """On each compiled launch, for the interpreter that fits it: ``GPU interpret: ready`` or
    ``GPU interpret: 2 blockers (get_global line 12, ...)``; clicking peeks the blockers."""
    from ..what_if import blocker_summary, blockers, fitting_modes
    from .convert import to_range

    results = await server.what_if_results(a)
    out = []
    for launch in a.result.launches:
        loc = a.locate(launch.anchor.line)
        if loc is None or loc.doc.uri != uri:
            continue
        rng = to_range(launch.anchor, loc, server.caps.encoding)
        for mode in fitting_modes(launch):
            result = results.get(mode)
            if result is None:
                continue
            found = blockers(result, launch)
            chain = []
            for f in found:
                floc = a.locate(f.span.line)
                if floc is not None:
                    r = to_range(f.span, floc, server.caps.encoding)
                    chain.append({"uri": floc.doc.uri, "range": {
                        "start": {"line": r.start.line, "character": r.start.character},
                        "end": {"line": r.end.line, "character": r.end.character}}})
            out.append(lsp.CodeLens(range=rng, command=lsp.Command(
                title=blocker_summary(found, mode), command=SHOW_LAUNCH_COMMAND,
                arguments=[uri, {"line": rng.start.line, "character": rng.start.character}, chain])))
    return out


def launch_chain(a: Analysed, launch, encoding: str) -> list[dict]:
    """The launch's context chain as LSP locations (JSON), in reading order: the launch, then
    for each context the lines that decide its mode (its ``interpret=`` or params, the callers
    it came through, in this module or another), then the kernel definitions."""
    from .convert import Location, other_doc, to_range

    out: list[dict] = []
    seen: set[tuple] = set()
    open_docs = server.open_paths

    def add(span, loc: Location | None) -> None:
        if loc is None:
            return
        rng = to_range(span, loc, encoding)
        key = (loc.doc.uri, rng.start.line, rng.start.character)
        if key in seen:
            return
        seen.add(key)
        out.append({"uri": loc.doc.uri, "range": {
            "start": {"line": rng.start.line, "character": rng.start.character},
            "end": {"line": rng.end.line, "character": rng.end.character}}})

    add(launch.anchor, a.locate(launch.anchor.line))
    for ctx in launch.contexts:
        for ev in ctx.evidence:
            if ev.path:  # another module of the workspace: the open text, else the file
                doc = open_docs.get(os.path.abspath(ev.path)) or other_doc(ev.path)
                add(ev.span, Location(doc, 0) if doc is not None else None)
            else:
                add(ev.span, a.locate(ev.span.line))
    index = a.result.index
    for k in launch.kernels:
        if k.node is None or getattr(k.block, "path", None) != index.path:
            continue  # a kernel defined in another module (not placed from here)
        sp = index.span(k.node, k)
        add(type(sp)(sp.line, sp.col, sp.line, sp.col), a.locate(sp.line))
    return out


# --- commands ------------------------------------------------------------------------------------
@server.command(EXPLAIN_COMMAND)
@_guard({"markdown": "pallas-lsp could not explain this text.", "slugs": []})
def explain_error(*args: Any) -> dict:
    from ..explain import explain_text, explanation_markdown
    text = "\n".join(str(a) for a in args if isinstance(a, str))
    store = server.store_for(Config(records=server.settings.records))
    expl = explain_text(text, store)
    rules_by_slug: dict[str, list[tuple[str, str]]] = {}
    for rule in server.engine_for(store).rules:
        rules_by_slug.setdefault(rule.record, []).append((rule.code, rule.name))
    return {"markdown": explanation_markdown(expl, rules_by_slug), "slugs": [e.record.slug for e in expl]}


@server.command(SHOW_LAUNCH_COMMAND)
@_guard(None)
async def show_launch(*args: Any) -> dict | None:
    """The code lens's command: show where the launch's context comes from. VS Code's extension
    peeks the chain itself (showReferences); any other client gets the editor moved to the first
    place that decides the mode (``window/showDocument``), and the chain as the result."""
    chain = [loc for loc in (args[2] if len(args) > 2 and isinstance(args[2], list) else [])
             if isinstance(loc, dict) and isinstance(loc.get("uri"), str) and isinstance(loc.get("range"), dict)]
    if not chain:
        return None
    target = chain[1] if len(chain) > 1 else chain[0]  # past the launch itself
    if server.caps.show_document:
        r = target["range"]
        try:
            await server.window_show_document_async(lsp.ShowDocumentParams(
                uri=target["uri"], take_focus=True, selection=lsp.Range(
                    lsp.Position(int(r["start"]["line"]), int(r["start"]["character"])),
                    lsp.Position(int(r["end"]["line"]), int(r["end"]["character"])))))
        except Exception:  # noqa: BLE001 - the client could not show it: the result still says where
            log.info("window/showDocument was refused", exc_info=True)
    return {"locations": chain}


# --- entry point ---------------------------------------------------------------------------------
def serve(tcp: str | None = None) -> int:
    try:  # `kill -USR1 <pid>` prints every thread's stack to stderr (diagnosing a stuck server)
        import faulthandler
        import signal

        faulthandler.register(signal.SIGUSR1, all_threads=True)
    except (ImportError, AttributeError, ValueError):
        pass
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("pygls").setLevel(logging.WARNING)
    from ..runtime import tune_gc

    tune_gc(batch=False)
    # Our own transports (lsp/protocol.py): bounded reads, the LSP lifecycle, exit codes.
    from .protocol import leave_process, loopback_address, run_stdio, run_tcp

    if tcp:
        try:
            host, port = loopback_address(tcp)
        except ValueError as exc:
            print(f"pallas-lsp serve: {exc}", file=sys.stderr)
            return 2
        try:
            code = run_tcp(server, host, port, on_session_end=_forget_client)
        except KeyboardInterrupt:  # how a TCP server is stopped
            code = 130
        leave_process(code)
    leave_process(run_stdio(server, sys.stdin.fileno(), sys.stdout.buffer))


def _forget_client() -> None:
    """Over TCP a client that leaves takes its documents with it: the next one starts afresh."""
    for task in server.debounce.values():
        task.cancel()
    for state in (server.debounce, server.inflight, server.docs, server.notebooks, server.analysed,
                  server.gens, server.deps):
        state.clear()
