"""PAL403: a Triton ``pl.pallas_call`` lowered for CUDA on a host without a GPU."""
from __future__ import annotations

from ..analysis import api
from ..analysis.contexts import Mode
from ..analysis.findings import Related
from ..analysis.rule_api import Hit, Report
from .base import PythonRule

USE_ABSTRACT_MESH = "jax.sharding.use_abstract_mesh"
ERROR = ("RuntimeError: No supported GPU devices found, please specify an abstract GPU device using "
         "AbstractDevice. See jax.sharding.use_abstract_mesh method for example.")


class TritonLoweredForCudaWithoutGpu(PythonRule):
    """A Triton `pl.pallas_call` lowered or exported for CUDA needs a GPU to ask for its
    compute capability.

    Triton's pallas_call lowering reads the target GPU's compute capability. On a host without
    a GPU and without an abstract device it raises (`pallas_call_registration.py`), so
    `.lower(lowering_platforms=("cuda",))` or `jax.export(..., platforms=["cuda"])` of such a
    kernel fails on a CPU-only machine (CI, a laptop) and works on a GPU host: the finding is a
    warning. Lower inside `jax.sharding.use_abstract_mesh(AbstractMesh(..., abstract_device=
    AbstractDevice(platform="cuda", ...)))` to name the GPU. Mosaic GPU kernels lower without one.
    """

    code = "PAL403"
    name = "triton-lower-cuda-no-gpu"
    record = "triton-lower-cuda-no-gpu"
    summary = "a Triton pl.pallas_call lowered or exported for CUDA (fails on a host without a GPU)"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    label = "pl.pallas_call"
    modes = frozenset({Mode.TRITON})

    def check(self, hit: Hit) -> Report | None:
        ctx = hit.context
        if ctx.lowered_for != "cuda" or not ctx.evidence:
            return None
        lowering = ctx.evidence[0]
        if lowering.path is not None:
            return None  # (a lowering in another module: not looked at)
        site = _lowering_call(hit, lowering.span)
        if site is None or _under_abstract_mesh(hit, site):
            return None
        return Report(ERROR, "`pl.pallas_call` (Triton) cannot be lowered for CUDA on a host without a GPU",
                      span=hit.span_of(site.node, site.scope), key=id(site.node), warning=True,
                      related=(Related(hit.span_of(hit.launch.site.node, hit.launch.site.scope),
                                       "the Triton launch it lowers"),))


def _lowering_call(hit: Hit, platforms):
    """The ``.lower(...)`` / ``export(...)`` call whose platforms argument is at ``platforms``."""
    for cs in hit.index.calls_to(("lower", "export")):
        if hit.index.span(cs.node, cs.scope).contains(platforms.line, platforms.col):
            return cs
    return None


def _under_abstract_mesh(hit: Hit, site) -> bool:
    """The call runs inside ``with jax.sharding.use_abstract_mesh(...)`` (in its function)."""
    ev = hit.ev
    for w in site.withs:
        for item in w.node.items:
            expr = item.context_expr
            func = getattr(expr, "func", None)
            if func is not None and ev.ext_name(ev.value(func, w.scope)) == USE_ABSTRACT_MESH:
                return True
    return False


__all__ = ["TritonLoweredForCudaWithoutGpu"]
