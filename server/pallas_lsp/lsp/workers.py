"""The server's two worker threads (the fast one for a module alone, the workspace one for
analyses across the workspace) and the cyclic collector's pause around cold analyses."""
from __future__ import annotations

import asyncio
import gc
import queue
import time
from typing import Any, Callable

# The collection a cold analysis skipped (PausedCollector): once the fast worker has been idle
# this long, or before its next job once the collector has been paused this long.
SETTLE_IDLE_S = 0.25
SETTLE_MAX_S = 2.0


class Worker:
    """One daemon thread that runs analyses in order (a shutdown never waits for it). Given the
    scheduler's :class:`PausedCollector`, it runs the collection a cold analysis skipped once it has
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
