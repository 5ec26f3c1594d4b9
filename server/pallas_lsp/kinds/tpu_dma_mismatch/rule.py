"""PAL730: a TPU DMA whose source and target differ in element type or shape."""
from __future__ import annotations

from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.ref_access import ref_accesses
from ...analysis.rule_api import Hit, Report
from ...analysis.tpu_dma import COPY_APIS, DMA_ENDS, DmaEnd, KernelSemaphores, dma_ends
from ...rules.base import PythonRule

_VERIFY = ("VerificationError: Pallas encountered an internal verification error. Please file a bug at "
           "https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.enqueue_dma' op ")


class TpuDmaMismatch(PythonRule):
    """A TPU DMA whose source and target windows differ in element type or shape.

    `pltpu.make_async_copy(src, dst, sem)`, `pltpu.async_copy(...)` and `pltpu.sync_copy(src, dst)`
    lower to one `tpu.enqueue_dma` of the two Refs as the `.at[...]` views written on them
    leave them. A DMA moves bytes and converts nothing: the Mosaic verifier
    (`EnqueueDMAOp::verify`, `jaxlib/mosaic/dialect/tpu/tpu_ops.cc`), which Pallas runs after it
    lowers the kernel, requires the same element type, then exactly the same shape (rank
    included: an integer index drops its dim). Copy into a buffer of the source's dtype and cast
    after the copy, and size the window (`ref.at[pl.ds(start, size)]`) like the buffer.
    """

    code = "PAL730"
    name = "tpu-dma-mismatch"
    record = "tpu-dma-mismatch"
    summary = ("a DMA (pltpu.make_async_copy / async_copy / sync_copy) whose source and target differ in "
               "element type or shape, compiled for TPU")
    label = "the DMA"
    apis = frozenset(DMA_ENDS)
    modes = frozenset({Mode.TPU})  # (the interpreters fail otherwise, in their own words)

    def applies(self, hit: Hit) -> bool:
        # Lowered for another platform, the Mosaic verifier never runs.
        return super().applies(hit) and hit.context.lowered_for in (None, "tpu")

    def _ends(self, hit: Hit) -> tuple[DmaEnd, DmaEnd] | None:
        if _through_decorated(hit.frames):
            return None
        accesses = ref_accesses(hit.ev, hit.launch, hit.view.reached)
        if accesses is None:
            return None
        if hit.api in COPY_APIS and COPY_APIS[hit.api] == "make":
            # (only a started copy enqueues a DMA: a descriptor made only to wait on is not verified so)
            semaphores = KernelSemaphores(hit.ev, accesses.values)
            with hit.reading():
                if not semaphores.is_started(hit.site.node, hit.site.scope):
                    return None
        return dma_ends(accesses, hit.site.node, hit.frames)

    def check(self, hit: Hit) -> Report | None:
        ends = self._ends(hit)
        if ends is None:
            return None
        src, dst = ends
        if "bool" in (src.dtype, dst.dtype):
            return None  # (the lowering refuses bool DMAs first, with its own error)
        call = f"`{hit.code_of(hit.site.node.func)}(...)`"
        if src.dtype is not None and dst.dtype is not None and _element_type(src.dtype) != _element_type(dst.dtype):
            error = _VERIFY + "DMA source and target element type mismatch"
            headline = (f"{call} copies {src.dtype} `{src.param}` into {dst.dtype} `{dst.param}`: a DMA converts "
                        "nothing, its source and target must have one element type")
        elif src.shape is not None and dst.shape is not None and src.shape != dst.shape:
            error = _VERIFY + "DMA source and target shape mismatch."
            headline = (f"{call} copies a {_shape(src.shape)} window of `{src.param}` into a {_shape(dst.shape)} "
                        f"window of `{dst.param}`: a DMA's source and target must have the same shape")
        else:
            return None
        related = []
        for end, role in ((src, "source"), (dst, "target")):
            declared = end.fact.declared
            if declared is not None:
                where = hit.ev.index.span(declared[0], declared[1])
                if where.line != hit.span.line:
                    related.append(Related(where, f"where the {role} `{end.param}` is declared"))
        return Report(error, headline, related=tuple(related))


def _through_decorated(frames, depth: int = 0) -> bool:
    """Whether the kernel reaches the DMA through a call of a decorated function: the decorator
    decides what its parameters hold (``pltpu.emit_pipeline`` hands its body block windows, not
    the Refs the call passes), so the Refs are not known."""
    for frame in frames:
        node = frame.target.node
        if frame.invocation is not None and getattr(node, "decorator_list", None):
            return True
        if depth < 4 and _through_decorated(frame.caller, depth + 1):
            return True
    return False


def _element_type(dtype: str) -> str:
    """The memref element type Mosaic gives a dtype: integers are signless (int8 and uint8 are
    both i8; an int8-to-uint8 copy verifies, checked by lowering)."""
    return dtype[1:] if dtype.startswith("uint") else dtype


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
