"""The shared part of the Triton grid-mapping rules (PAL661, PAL662, PAL663): each asks for the
first check of the Triton lowering the launch fails (``analysis/gpu_launch.py``) and reports it
when it is its own kind, so a launch with several defects is reported once, for the one JAX
raises. Where a release compiles a GPU pallas_call with Mosaic GPU instead (jax 0.9-0.10), the
same defects are refused by Mosaic GPU's own checks, in its order and wording (``mosaic_error``)."""
from __future__ import annotations

import ast

from ..analysis import api
from ..analysis.contexts import Mode
from ..analysis.evaluate import CallVal, Const, Decorated, PartialVal, TupleVal
from ..analysis.findings import Related
from ..analysis.gpu_launch import (TritonDefect, first_mosaic_gpu_pipeline_defect, first_triton_defect,
                                   mosaic_gpu_pipelined, triton_lowered)
from ..analysis.rule_api import Hit, Report
from .base import PythonRule
from .dynamic_grid_gpu_interpret import UNKNOWN, Staticness, StaticEvaluator, grid_entries

# Methods of a jitted function that trace it with its arguments (``jax.jit(f).trace(x, n)``).
_TRACING_METHODS = ("trace", "lower", "eval_shape")


class TracingStaticEvaluator(StaticEvaluator):
    """The grid static evaluator, which also knows a function traced through
    ``jax.jit(f).trace(...)`` / ``.lower(...)``: its parameters outside static_argnums /
    static_argnames are traced values."""

    def _param(self, fn, name: str, depth: int = 0) -> Staticness:
        found = super()._param(fn, name, depth)
        if found.kind == "dynamic":
            # (``static_argnums=list(range(3, 14))``: the evaluator reads no static argument
            # from it, so every parameter looks traced; unknown instead)
            sites = [found.jit_call] if found.jit_call is not None else _jit_sites(self.ev, fn)
            return found if all(_statics_readable(self.ev, site) for site in sites) else UNKNOWN
        if found.kind != "unknown" or fn is None or fn.kind != "function":
            return found
        ev = self.ev
        names = [p[0] for p in fn.params]
        if name not in names:
            return found
        for cs in ev.index.calls_to(_TRACING_METHODS):
            func = cs.node.func
            if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Call):
                continue
            jitted = ev.value(func.value, cs.scope, ev.order_of(cs))
            if not isinstance(jitted, CallVal) or ev.called_api(jitted) != api.JIT or not jitted.site.positional:
                continue
            if ev.function_of(ev.value(jitted.site.positional[0], jitted.site.scope)) is not fn:
                continue
            if not _statics_readable(ev, jitted.site):
                return UNKNOWN
            nums, statics = ev.jit_static(jitted)
            if names.index(name) in nums or name in statics:
                return found
            return Staticness("dynamic", f"`{name}` is an argument of `{fn.name}`, which "
                              f"`jax.jit({fn.name}).{func.attr}(...)` traces (it is not static)",
                              cs.node, cs.scope, jit_call=jitted.site, param=name)
        return UNKNOWN


def _jit_sites(ev, fn) -> list:
    """The ``jax.jit(...)`` / ``functools.partial(jax.jit, ...)`` decorator calls of a def."""
    sites = []
    v = ev.def_value(fn) if fn is not None else None
    while isinstance(v, Decorated):
        if isinstance(v.decorator, (CallVal, PartialVal)):
            sites.append(v.decorator.site)
        v = v.inner
    return sites


def _statics_readable(ev, site) -> bool:
    """Whether the static_argnums / static_argnames a jit call gives (if any) are literal ints
    and strings the evaluator reads."""
    order = ev.order_of(site)
    for key in ("static_argnums", "static_argnames"):
        node = ev.kwarg(site, key)
        if node is None:
            continue
        v = ev.value(node, site.scope, order)
        items = [v] if isinstance(v, Const) else \
            [ev.value(n, s, o) for n, s, o in v.items] if isinstance(v, TupleVal) else None
        if items is None or not all(isinstance(it, Const) for it in items):
            return False
    return True


def dynamic_grid_entry(ev, launch):
    """The first grid entry that is a traced value when the launch is built, and why."""
    se = TracingStaticEvaluator(ev)
    for node, scope, order in grid_entries(ev, launch):
        st = se.of(node, scope, order)
        if st.kind == "dynamic":
            return (node, scope, order), st.reason
    return None


class TritonLaunchRule(PythonRule):
    """A rule on the first grid-mapping check of the Triton lowering that a launch fails, where
    that check is ``defect_kind``; ``error`` and ``headline`` say it."""

    defect_kind = ""
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    launch_apis = frozenset({api.PALLAS_CALL})
    # Triton's context, and the contexts a CUDA lowering of a plain pallas_call is given
    # (TPU memory spaces in its specs make the analysis call it TPU; JAX lowers by platform).
    # (and Mosaic GPU's, where a release compiles a plain GPU pallas_call with it)
    modes = frozenset({Mode.TRITON, Mode.TPU, Mode.COMPILED, Mode.MOSAIC_GPU})
    # What Mosaic GPU's pipeline raises for the same defect in jax 0.9-0.10 (a wording of the
    # record, run under 0.10.2); None: its check is not this kind's message, and the rule stays quiet.
    mosaic_error: str | None = None

    def applies(self, hit: Hit) -> bool:
        if not super().applies(hit):
            return False
        if self.mosaic_error is not None and self._by_mosaic_gpu(hit):
            return True
        return triton_lowered(hit.ev, hit.launch, hit.context, hit.release)

    @staticmethod
    def _by_mosaic_gpu(hit: Hit) -> bool:
        return mosaic_gpu_pipelined(hit.ev, hit.launch, hit.context, hit.release)

    def backend_words(self, hit: Hit) -> str:
        """How the headline names the backend that refuses it."""
        if self._by_mosaic_gpu(hit):
            return f"Mosaic GPU (which compiles a GPU pallas_call in jax {hit.release.version})"
        return "the Triton backend"

    def error(self, defect: TritonDefect) -> str:
        raise NotImplementedError

    def headline(self, hit: Hit, defect: TritonDefect) -> str:
        raise NotImplementedError

    def defect(self, hit: Hit) -> TritonDefect | None:
        if self._by_mosaic_gpu(hit):
            found, _ = first_mosaic_gpu_pipeline_defect(hit.ev, hit.launch, dynamic_grid_entry)
        else:
            found = first_triton_defect(hit.ev, hit.launch, dynamic_grid_entry)
        return found if found is not None and found.kind == self.defect_kind else None

    def check(self, hit: Hit) -> Report | None:
        found = self.defect(hit)
        if found is None:
            return None
        node, scope, _ = found.where
        span = hit.span_of(node, scope)
        mosaic = self._by_mosaic_gpu(hit)
        backend = "Mosaic GPU" if mosaic else "Triton"
        related = [Related(hit.span_of(hit.launch.site.node, hit.launch.site.scope),
                           f"the pl.pallas_call, compiled by {backend} ({hit.context.decided_by})")]
        error = f"NotImplementedError: {self.mosaic_error}" if mosaic else self.error(found)
        return Report(error, self.headline(hit, found), span=span, key=id(node),
                      related=tuple(r for r in related if r.span.line != span.line), fixable=self.fixable)

    fixable = False
