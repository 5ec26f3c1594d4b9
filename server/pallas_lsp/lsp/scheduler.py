"""When analyses run and who is told: the workers, the debounce, the two analysis phases of a
unit, and publishing (push clients) or asking for a refresh (pull clients).

Analysis runs on a worker thread, on a :class:`~.session.UnitSnapshot` taken on the event loop;
a result for a version the client has moved past is never published."""
from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Protocol

from lsprotocol import types as lsp

from .lens_work import LensWork
from .results import Analysed, analyse_alone, analyse_in_workspace
from .session import Session, UnitSnapshot, uri_to_path
from .workers import PausedCollector, Worker

if TYPE_CHECKING:
    from ..records import RecordStore

log = logging.getLogger("pallas_lsp")
WORKSPACE_QUIET_S = 0.3  # how long a document must rest before the workspace-wide analysis runs


class Client(Protocol):
    """What the scheduler tells the client (the pygls server object)."""

    def text_document_publish_diagnostics(self, params: lsp.PublishDiagnosticsParams) -> None: ...

    def workspace_diagnostic_refresh(self, params: None) -> Any: ...

    def workspace_code_lens_refresh(self, params: None) -> Any: ...


class Job:
    """A unit's module-alone analysis, queued or running on the fast worker."""

    def __init__(self, gen: int, fut: asyncio.Future) -> None:
        self.gen = gen
        self.fut = fut  # the Analysed, or None when superseded before it started


class Scheduler:
    def __init__(self, session: Session, client: Client) -> None:
        self.session = session
        self.client = client
        self.collector = PausedCollector()  # paused for cold analyses; the fast worker settles it
        self.workers: dict[str, Worker] = {}  # started on first use (after `initialize`)
        self.inflight: dict[str, Job] = {}  # unit -> its one module-alone analysis running or queued
        self.debounce: dict[str, asyncio.Task] = {}
        self.pending_refresh = False  # (pull) a dependency changed: the client should pull again
        self.lenses = LensWork(self)  # the lenses' analyses: what-if modes and memory budgets

    # --- workers ------------------------------------------------------------------------------
    @property
    def worker(self) -> Worker:
        """This module alone: fast, every keystroke."""
        return self._worker_named("fast")

    @property
    def workspace_worker(self) -> Worker:
        """Across the workspace: may take seconds when cold."""
        return self._worker_named("workspace")

    def _worker_named(self, name: str) -> Worker:
        w = self.workers.get(name)
        if w is None:
            w = self.workers[name] = Worker(self.collector if name == "fast" else None)
        return w

    def warm_up(self, then: Callable[[], None] = lambda: None) -> None:
        """Once `initialize` is answered: import the engine, the rules and the records on the
        fast worker, so the first document's analysis finds them loaded and the client's first
        request did not wait for them. ``then`` runs on the loop once that is done."""
        session = self.session

        def warm() -> RecordStore:
            from .. import explain, present  # noqa: F401 - imported for hovers and lenses
            from ..records import default_store
            from ..runtime import tune_gc
            from . import convert  # noqa: F401

            session.engine  # noqa: B018 - creates it
            store = default_store()
            tune_gc(batch=False)  # the analysis modules are imported now: freeze them too
            return store

        def done(fut: asyncio.Future) -> None:
            if fut.cancelled() or fut.exception() is not None:
                log.error("warming up failed: %r", None if fut.cancelled() else fut.exception())
            else:
                session.adopt_default_store(fut.result())
            then()

        self.worker.submit(warm).add_done_callback(done)

    def submit_workspace(self, fn: Callable[[], Any]) -> asyncio.Future:
        """Run ``fn`` on the workspace worker, reading the open documents as they are now: the
        snapshot is taken here, on the event loop, and handed to the worker with the job."""
        texts = {p: d.text for p, d in self.session.open_paths.items()}
        reader = self.session.open_texts

        def job() -> Any:
            reader.texts = texts
            return fn()

        return self.workspace_worker.submit(job)

    # --- the analysis phases ----------------------------------------------------------------
    async def ensure(self, unit: str) -> Analysed | None:
        """The analysis of the unit's current text (computed now if needed).

        At most one analysis of a unit runs at a time. Changes made while it runs only make it
        stale; when it ends, the newest text is analysed, never the versions typed in between
        (latest version wins), so typing fast queues no work and needs no debounce."""
        session = self.session
        while True:
            gen = session.gens.get(unit, 0)
            have = session.analysed.get(unit)
            if have is not None and have.gen == gen:
                return have
            job = self.inflight.get(unit)
            if job is None:
                job = self.start_analysis(unit)
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

    def start_analysis(self, unit: str) -> Job | None:
        """Queue the module-alone analysis of the unit's current text."""
        snap = self.session.snapshot(unit)
        if snap is None:
            return None
        collector = self.collector
        job = Job(snap.gen, self.worker.submit(lambda: analyse_alone(snap, collector)))
        self.inflight[unit] = job

        def done(fut: asyncio.Future) -> None:
            session = self.session
            if self.inflight.get(unit) is job:
                del self.inflight[unit]
            if fut.cancelled() or fut.exception() is not None:
                return  # whoever awaits it reports the error
            a = fut.result()
            if a is None or unit not in session.gens:  # superseded, or closed meanwhile
                return
            have = session.analysed.get(unit)
            if have is None or have.gen <= a.gen:
                session.analysed[unit] = a
            if snap.program is not None and session.gens.get(unit) == snap.gen:
                self.follow_workspace(snap)

        job.fut.add_done_callback(done)
        return job

    def follow_workspace(self, snap: UnitSnapshot) -> None:
        """Phase 2, on the workspace worker: the same text with imports, importers and callers
        across the workspace followed. Its result replaces phase 1's when the document has not
        moved on, and clients are told."""
        session, unit, gen = self.session, snap.unit, snap.gen
        snap = replace(snap, caps=replace(session.caps), prev=session.analysed.get(unit),
                       stale=session.stale_flag(unit), engine=session.engine_for(snap.store))

        async def finish() -> None:
            # Only once typing pauses: a burst of keystrokes would only queue work that the next
            # keystroke makes stale, and it would compete with the module-alone analyses.
            await asyncio.sleep(WORKSPACE_QUIET_S)
            if session.gens.get(unit, 0) != gen:
                return
            try:
                got = await self.submit_workspace(lambda: analyse_in_workspace(snap))
            except Exception:  # noqa: BLE001
                log.exception("workspace analysis of %s failed", unit)
                return
            if got is None:
                return
            a, session.deps[unit] = got
            if session.gens.get(unit, 0) != gen:
                return
            session.analysed[unit] = a
            if session.caps.pull:
                if session.caps.refresh:
                    self.client.workspace_diagnostic_refresh(None)
            else:
                self.publish(unit, a)

        asyncio.ensure_future(finish())

    # --- what changed, and who is told ------------------------------------------------------
    def changed(self, unit: str) -> None:
        """The unit's text changed: a new generation, analysed after the debounce (push)."""
        self.session.bump(unit)
        self.schedule(unit)

    def module_changed(self, path: str) -> None:
        """A workspace module changed (edited or on disk): forget it and re-analyse the open
        documents whose last analysis consulted it (and only those)."""
        session = self.session
        path = os.path.abspath(path)
        if session.program is not None:
            program = session.program
            self.submit_workspace(lambda: program.forget(path))
        for uri in list(session.docs):
            unit = session.unit_of(uri)
            if unit in session.notebooks or uri_to_path(unit) == path:
                continue
            if path in session.deps.get(unit, set()):
                self.changed(unit)
                self.pending_refresh = True

    def refresh_if_pending(self) -> None:
        """Pull clients: ask for the diagnostics again once a dependency of an open unit changed."""
        caps = self.session.caps
        if caps.pull and self.pending_refresh and caps.refresh:
            self.pending_refresh = False
            self.client.workspace_diagnostic_refresh(None)

    def schedule(self, unit: str) -> None:
        """Push clients: re-analyse after the debounce and publish; pull clients ask themselves."""
        if self.session.caps.pull:
            return
        old = self.debounce.pop(unit, None)
        if old is not None:
            old.cancel()
        self.debounce[unit] = asyncio.ensure_future(self._debounced(unit))

    async def _debounced(self, unit: str) -> None:
        try:
            delay = self.session.settings.debounce_ms / 1000
            if delay:
                await asyncio.sleep(delay)
            a = await self.ensure(unit)
            if a is None or a.gen != self.session.gens.get(unit, 0):
                return  # the document moved on: a newer analysis will publish
            self.publish(unit, a)
        except asyncio.CancelledError:
            pass
        except Exception:  # noqa: BLE001
            log.exception("analysis of %s failed", unit)

    def publish(self, unit: str, a: Analysed) -> None:
        session = self.session
        for uri in session.uris_of(unit):
            doc = session.docs.get(uri)
            if doc is None:
                continue
            self.client.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
                uri=uri, diagnostics=a.diagnostics.get(uri, []), version=doc.version))

    def clear_diagnostics(self, uris: list[str]) -> None:
        """Push clients: documents that left (closed, or cells removed) show no diagnostics."""
        if self.session.caps.pull:
            return
        for uri in uris:
            self.client.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def refresh_all(self) -> None:
        """Settings, records or config changed: re-analyse every open unit."""
        session = self.session
        units = {session.unit_of(u) for u in session.docs}
        for unit in units:
            session.bump(unit)
        if session.caps.pull:
            if session.caps.refresh:
                try:
                    self.client.workspace_diagnostic_refresh(None)
                except Exception:  # noqa: BLE001
                    log.exception("diagnostic refresh")
        else:
            for unit in units:
                self.schedule(unit)
        if session.caps.code_lens_refresh:
            try:
                self.client.workspace_code_lens_refresh(None)
            except Exception:  # noqa: BLE001
                log.exception("code lens refresh")

    # --- closing ------------------------------------------------------------------------------
    def close(self, unit: str) -> None:
        """A text document or a notebook closed: the same cleanup for both (Session.close), its
        pending publish cancelled, its diagnostics cleared (push), and the units that read a
        closed module's open text re-analysed against the file on disk."""
        session = self.session
        is_text = unit not in session.notebooks
        task = self.debounce.pop(unit, None)
        if task is not None:
            task.cancel()
        self.clear_diagnostics(session.close(unit))
        if is_text and (p := uri_to_path(unit)) and session.program is not None:
            self.module_changed(p)  # back to the text on disk

    def reset(self) -> None:
        """The client left (TCP): its documents go with it and the next one starts afresh."""
        for task in self.debounce.values():
            task.cancel()
        self.debounce.clear()
        self.inflight.clear()
        self.pending_refresh = False
        self.session.reset()
