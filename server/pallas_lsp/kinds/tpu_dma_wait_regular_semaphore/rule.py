"""PAL731: a DMA waited on with a semaphore allocated as ``SemaphoreType.REGULAR``."""
from __future__ import annotations

from ...analysis.contexts import Mode
from ...analysis.findings import Fix, Related, TextEdit
from ...analysis.rule_api import Hit, Report
from ...analysis.tpu_dma import COPY_APIS, KernelSemaphores, SemaphoreView
from ...rules.base import PythonRule


class TpuDmaWaitRegularSemaphore(PythonRule):
    """A DMA whose semaphore is a REGULAR semaphore, waited on.

    `pltpu.make_async_copy(src, dst, sem)` / `pltpu.async_copy(...)` signal `sem` when the copy
    lands, and `.wait()` traces `dma_wait`, whose abstract evaluation
    (`_dma_wait_abstract_eval`, `jax/_src/pallas/mosaic/primitives.py`) accepts only a DMA
    semaphore: one allocated as `pltpu.SemaphoreType.REGULAR` raises when the kernel is traced
    for TPU. Allocate it as `pltpu.SemaphoreType.DMA` (same shape); a regular semaphore is for
    `pl.semaphore_signal`/`pl.semaphore_wait`.
    """

    code = "PAL731"
    name = "tpu-dma-wait-regular-semaphore"
    record = "tpu-dma-wait-regular-semaphore"
    summary = "a DMA (pltpu.make_async_copy / async_copy) waited on with a SemaphoreType.REGULAR semaphore, for TPU"
    label = "the DMA's semaphore"
    apis = frozenset(COPY_APIS)
    modes = frozenset({Mode.TPU})

    def applies(self, hit: Hit) -> bool:
        return super().applies(hit) and hit.context.lowered_for in (None, "tpu")

    def _regular(self, hit: Hit) -> SemaphoreView | None:
        sem = hit.argument(2, "sem")
        semaphores = KernelSemaphores.of(hit.ev, hit.launch)
        if sem is None or semaphores is None:
            return None
        with hit.reading():
            view = semaphores.view(sem, hit.site.scope)
            if view is None or view.semaphore.kind != "REGULAR" or view.shape != ():
                return None  # (a non-scalar semaphore fails at the DMA's start: PAL616)
            if not semaphores.is_waited(hit.site.node, hit.site.scope):
                return None
        return view

    def check(self, hit: Hit) -> Report | None:
        view = self._regular(hit)
        if view is None:
            return None
        node, scope, _ = view.semaphore.allocated
        error = ("ValueError: dma_wait requires a DMA semaphore, but got a regular semaphore. "
                 "Use pl.semaphore_wait() instead.")
        headline = (f"the DMA `{hit.code_of(hit.site.node.func)}(...)` is waited on with a semaphore allocated as "
                    "SemaphoreType.REGULAR: a DMA's wait needs SemaphoreType.DMA")
        related = (Related(hit.span, "the DMA whose wait needs a DMA semaphore"),)
        return Report(error, headline, span=hit.span_of(node, scope), key=id(node), related=related)

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        view = self._regular(hit)
        if view is None:
            return []
        node, scope, _ = view.semaphore.allocated
        text = hit.code_of(node, scope)
        if text.count("REGULAR") != 1:
            return []
        fixed = text.replace("REGULAR", "DMA")
        # (safe: the same copies and waits, on the semaphore type a DMA signals)
        return [Fix(f"Allocate it as {fixed}", (TextEdit(hit.span_of(node, scope), fixed),), preferred=True, safe=True)]
