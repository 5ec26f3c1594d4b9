"""PAL616: a DMA started, or a semaphore signalled or waited, on an array of semaphores."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.rule_api import Hit, Report
from ...analysis.tpu_dma import COPY_APIS, KernelSemaphores, SemaphoreView
from ...rules.base import PythonRule

# The semaphore argument of each construct, and what jax's message calls the operation.
_SIGNALS = {f"{api.PL}.semaphore_signal": "signal", f"{api.PL}.semaphore_wait": "wait",
            f"{api.PLTPU}.semaphore_signal": "signal", f"{api.PLTPU}.semaphore_wait": "wait"}


class SemaphoreNotScalar(PythonRule):
    """A semaphore array where one semaphore is needed.

    A DMA's start (`pltpu.make_async_copy(...).start()`, `pltpu.async_copy(...)`) and
    `pl.semaphore_signal`/`semaphore_wait` each act on one semaphore: their abstract evaluation
    (`_dma_start_abstract_eval` in `jax/_src/pallas/mosaic/primitives.py`, `check_sem_avals` in
    `jax/_src/pallas/primitives.py`) raises for a semaphore Ref whose shape is not `()`, when the
    kernel is traced: compiled for TPU and under `interpret=True` alike. Index the array down to
    one semaphore: `sems.at[slot]` (`sems.at[i, j]` for a 2-D array).
    """

    code = "PAL616"
    name = "semaphore-not-scalar"
    record = "semaphore-not-scalar"
    summary = "a DMA started, or a semaphore signalled or waited, on a semaphore array instead of one semaphore"
    label = "the semaphore"
    apis = frozenset(COPY_APIS) | frozenset(_SIGNALS)
    # (tracing raises before either runs; shown compiled for TPU and with interpret=True)
    modes = frozenset({Mode.TPU, Mode.INTERPRET})

    def applies(self, hit: Hit) -> bool:
        return super().applies(hit) and hit.context.lowered_for in (None, "tpu")

    def _array(self, hit: Hit):
        operation = _SIGNALS.get(hit.api)
        sem = hit.argument(2, "sem") if operation is None else hit.argument(0, "sem_or_view")
        semaphores = KernelSemaphores.of(hit.ev, hit.launch)
        if sem is None or semaphores is None:
            return None
        with hit.reading():
            view = semaphores.view(sem, hit.site.scope)
            if view is None or view.shape == ():
                return None
            if operation is None and not semaphores.is_started(hit.site.node, hit.site.scope):
                return None  # (a descriptor never started signals nothing)
        return sem, view, operation or "signal"

    def check(self, hit: Hit) -> Report | None:
        got = self._array(hit)
        if got is None:
            return None
        sem, view, operation = got
        shape = _shape_text(view)
        node, scope, _ = view.semaphore.allocated
        error = f"ValueError: Cannot {operation} on a non-()-shaped semaphore: {shape}"
        what = "the DMA's semaphore" if hit.api in COPY_APIS else f"pl.semaphore_{operation}'s semaphore"
        headline = (f"{what} `{hit.code_of(sem)}` is an array of shape {shape}, not one semaphore: "
                    f"index it down to one (`.at[...]` with {len(view.shape)} more index"
                    f"{'es' if len(view.shape) != 1 else ''})")
        related = (Related(hit.span_of(node, scope), f"allocated as SemaphoreType.{view.semaphore.kind} of shape "
                                                     f"{_tuple(view.semaphore.shape)}"),)
        # (one finding per allocation: tracing stops at its first use)
        return Report(error, headline, span=hit.span_of(sem), key=id(node), related=related, fixable=False)


def _tuple(shape: tuple[int, ...]) -> str:
    return str(tuple(shape))


def _shape_text(view: SemaphoreView) -> str:
    return _tuple(view.shape)
