"""The lenses' analyses, apart from the per-keystroke work: the what-if analyses (each a
whole-module analysis in another mode, made once typing pauses) and each launch's memory budget
(analysis/launch_report.py). Owned by the :class:`~.scheduler.Scheduler`, whose workers run them."""
from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from .session import uri_to_path

if TYPE_CHECKING:
    from .results import Analysed
    from .scheduler import Scheduler

log = logging.getLogger("pallas_lsp")

# What-if lenses are worked out once typing has paused this long (seconds): each is a whole-module
# analysis in another mode, as long as a cold keystroke's on a large file.
LENS_IDLE_S = 1.0


class LensWork:
    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler
        self.session = scheduler.session
        # (rule set id, what-if mode) -> an incremental engine used only on the fast worker: after
        # an edit, a what-if lens analyses again only what changed, as a keystroke does.
        self._what_if_engines: dict[tuple[int, str], Any] = {}
        self.last_typed: dict[str, float] = {}  # unit -> when its text last changed (monotonic s)
        self._lens_waits: dict[str, asyncio.Future] = {}  # unit -> the wait for it to go idle

    async def what_if_results(self, a: Analysed, until_typing: str | None = None) -> dict:
        """The what-if analyses of an analysed text (``assume_interpret``, ``assume_compiled``),
        one per mode its launches fit; made on the fast worker when first asked for, kept with
        it. ``until_typing``: stop before the next mode once that unit is edited again."""
        from ..what_if import COMPILED_TPU, compiled_modes, fitting_modes

        if a.slices is not None:
            return {}  # (notebooks: not yet)
        backends = tuple(self.session.config_for(a.unit).backends or ())
        modes = sorted({m for launch in a.result.launches
                        for m in fitting_modes(launch) + compiled_modes(launch, a.text, backends)})
        todo = [m for m in modes if m not in a.what_if]
        if todo:
            text, path = a.text, uri_to_path(a.unit)
            engines = {m: self._what_if_engine(m) for m in todo}
            from ..chips import ChipClaims

            claims, generation = ChipClaims.of(self.session.store(a.unit).records), a.tpu_generation

            def one(mode: str):
                if mode != COMPILED_TPU:
                    return engines[mode].analyse(text, path, assume_interpret=mode, release=a.release)
                got = engines[mode].analyse(text, path, assume_compiled="tpu", backends=backends, release=a.release)
                got.findings = claims.claimed(got.findings, generation)  # (chip-only kinds: for the chip chosen)
                return got

            def work() -> dict:
                done = {}
                for m in todo:  # (one mode at a time: typing again stops the rest)
                    if until_typing is not None and self.typing(until_typing):
                        break
                    done[m] = one(m)
                return done

            a.what_if.update(await self.scheduler.worker.submit(work))
        return a.what_if

    def _what_if_engine(self, mode: str):
        from ..analysis.engine import Engine

        rules = self.session.engine.rules
        key = (id(rules), mode)
        engine = self._what_if_engines.get(key)
        if engine is None:  # (a new rule set: the engines of the old one go)
            self._what_if_engines = {k: v for k, v in self._what_if_engines.items() if k[0] == key[0]}
            engine = self._what_if_engines[key] = Engine(rules, incremental=True, caches=self.session.caches)
        return engine

    async def launch_reports(self, a: Analysed) -> list:
        """Each launch's backend, grid and memory budget (analysis/launch_report.py), worked out
        when first asked for and kept with the analysis: on the worker that owns the evaluator
        the analysis read with (the workspace's, for a workspace-wide analysis)."""
        if a.reports is None:
            from ..analysis.launch_report import launch_reports

            result, generation = a.result, a.tpu_generation

            def work() -> list:
                return launch_reports(result, generation)

            in_workspace = getattr(result.evaluator, "program", None) is not None
            scheduler = self.scheduler
            a.reports = await (scheduler.submit_workspace(work) if in_workspace else scheduler.worker.submit(work))
        return a.reports

    def typed(self, unit: str) -> None:
        """The user edited the unit (didChange): what-if lenses wait until typing pauses."""
        self.last_typed[unit] = time.monotonic()

    def typing(self, unit: str) -> bool:
        return time.monotonic() - self.last_typed.get(unit, -LENS_IDLE_S) < LENS_IDLE_S

    def when_idle(self, unit: str) -> None:
        """A lens request came while the user types: once the unit has been left alone for
        LENS_IDLE_S, work out the what-if analyses of its text then and ask the client to ask
        for the lenses again (their whole-module analyses never hold up a keystroke's)."""
        if unit in self._lens_waits:
            return

        async def wait() -> None:
            try:
                while (left := self.last_typed.get(unit, 0.0) + LENS_IDLE_S - time.monotonic()) > 0:
                    await asyncio.sleep(left)
                a = await self.scheduler.ensure(unit)
                if a is None or self.typing(unit):
                    return
                await self.what_if_results(a, until_typing=unit)
                if self.typing(unit):
                    return  # (typing resumed: the next pause starts again)
                self.scheduler.client.workspace_code_lens_refresh(None)
            except Exception:  # noqa: BLE001 - a refresh is a courtesy; the next request works it out
                log.exception("code lens refresh after typing")
            finally:
                self._lens_waits.pop(unit, None)

        self._lens_waits[unit] = asyncio.ensure_future(wait())
