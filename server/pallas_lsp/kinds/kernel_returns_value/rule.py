"""PAL605: a pallas_call kernel that returns a value."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.launch_signature import returned_values
from ...analysis.rule_api import Hit, Report
from ...rules.base import PythonRule


class KernelReturnsValue(PythonRule):
    """A `pl.pallas_call` kernel returns a value instead of None.

    A Pallas kernel hands its results back only through its output Refs. When `pl.pallas_call`
    traces the kernel (`_trace_kernel_to_jaxpr` in jax/_src/pallas/pallas_call.py) it checks that
    the kernel's result is None and raises `ValueError: The kernel function in the pallas_call
    ... should return None. It returns a PyTree: ...` otherwise, even when the kernel also
    writes its outputs. This happens as the launch is traced, in every mode (interpret mode on
    a CPU included). Write the result into the output Ref (`o_ref[...] = result`) and return
    nothing; a bare `return` is fine. Only a return whose value is surely not None is reported.
    """

    code = "PAL605"
    name = "kernel-returns-value"
    record = "kernel-returns-value"
    summary = "a pallas_call kernel that returns a value instead of writing its output Refs"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    label = "kernel"
    modes = frozenset(Mode)  # (raised while tracing: before any backend is involved)

    def applies(self, hit: Hit) -> bool:
        return True  # (tracing fails on any host, before the CPU host check of a compiled launch)

    def check(self, hit: Hit) -> Report | None:
        if len(hit.launch.kernels) != 1 or hit.launch.kernel is None:
            return None
        kernel = hit.launch.kernel
        returned = returned_values(hit.ev, kernel)
        if not returned:
            return None
        value = returned[0]
        span = hit.index.span(value, kernel)
        path = hit.index.path_of(kernel)
        launch_span = hit.span_of(hit.launch.site.node, hit.launch.site.scope)
        related = [Related(launch_span, "the pallas_call that traces this kernel")]
        if path is not None and path != hit.index.path:
            related = [Related(span, f"`{kernel.name}` returns a value here", path)]
            span = hit.span
        error = (f"ValueError: The kernel function in the pallas_call {kernel.name} should return None. "
                 f"It returns a PyTree: PyTreeDef(...)")
        headline = (f"kernel `{kernel.name}` returns a value; a pallas_call kernel must return None and "
                    f"write its results into its output Refs")
        return Report(error, headline, span=span, key=("returns", id(kernel)), related=tuple(related),
                      fixable=False)


__all__ = ["KernelReturnsValue"]
