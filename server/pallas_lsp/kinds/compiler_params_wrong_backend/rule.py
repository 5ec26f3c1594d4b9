"""PAL614: a pallas_call given another backend's compiler params than the one it is lowered for."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Fix, Related
from ...analysis.fixes import remove_kwarg
from ...analysis.rule_api import Hit, Report
from ...analysis.tpu_params import params_call
from ...lowering import PINNED_RELEASE
from ...rules.base import PythonRule

# The platform each params class is registered for, and how the code names the class.
_PLATFORM = {"tpu": "tpu", "triton": "gpu", "mosaic_gpu": "gpu"}
_CLASS = {"tpu": "pltpu.CompilerParams", "triton": "plt.CompilerParams (Triton)",
          "mosaic_gpu": "plgpu.CompilerParams (Mosaic GPU)"}
_MODE_PLATFORM = {Mode.TPU: "tpu", Mode.TRITON: "gpu", Mode.MOSAIC_GPU: "gpu"}
# Releases that print what jax 0.10.2 prints (verified there; the later ones as 0.12.0.1).
_OLD = ("0.8.", "0.9.", "0.10.")


class CompilerParamsWrongBackend(PythonRule):
    """`compiler_params=` of another backend than the one the pallas_call is lowered for.

    Each params class has the lowering rule of its own backend (`pltpu.CompilerParams` the
    Mosaic TPU one, `plt.CompilerParams` Triton's, `plgpu.CompilerParams` Mosaic GPU's). A
    pallas_call lowered for TPU with GPU params fails: jax 0.12 raises "Compiler params for
    platform gpu cannot be used for tpu lowering." (`get_lowering_rule`) where the Triton rule
    is registered, and a bare AssertionError in the TPU rule otherwise (always in jax 0.10).
    TPU params lowered for a GPU fail in `gpu_lowering` likewise. `interpret=True` does not
    lower for a backend. Pass the params of the backend the launch runs on, or none.
    """

    code = "PAL614"
    name = "compiler-params-wrong-backend"
    record = "compiler-params-wrong-backend"
    summary = "a pallas_call lowered for one backend (TPU or GPU) given another backend's CompilerParams"
    label = "compiler_params"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.TPU, Mode.TRITON, Mode.MOSAIC_GPU})  # (interpret mode lowers for no backend)
    launch_apis = frozenset({api.PALLAS_CALL})

    def check(self, hit: Hit) -> Report | None:
        ev, launch = hit.ev, hit.launch
        got = params_call(ev, launch)
        if got is None:
            return None
        _, backend = got
        lowered = hit.context.lowered_for
        if lowered is None:
            target = _MODE_PLATFORM.get(hit.context.mode)
        else:
            target = {"tpu": "tpu", "cuda": "gpu", "rocm": "gpu"}.get(lowered)
        if target is None or target == _PLATFORM[backend]:
            return None
        option = launch.options["compiler_params"]
        span = ev.index.span(option[0], option[1])
        related = []
        made = got[0].site
        made_span = ev.index.span(made.node, made.scope)
        if made_span.line != span.line:
            related.append(Related(made_span, f"the {_CLASS[backend].split(' ')[0]} made here"))
        release = hit.release.version or PINNED_RELEASE
        error = self._error(backend, target, release.startswith(_OLD))
        where = "TPU" if target == "tpu" else "a GPU"
        headline = (f"compiler_params is {_CLASS[backend]}, but the launch is lowered for {where}: each backend's "
                    f"lowering takes only its own params class")
        return Report(error, headline, span=span, key=id(option[0]), related=tuple(related),
                      fixable=self._removable(hit) is not None)

    @staticmethod
    def _error(backend: str, target: str, old: bool) -> str:
        if target == "tpu":
            if backend == "triton" and not old:
                return "ValueError: Compiler params for platform gpu cannot be used for tpu lowering."
            return "AssertionError (in pallas_call_tpu_lowering_rule: the params are not pltpu.CompilerParams)"
        if old:
            return "ValueError: Cannot lower pallas_call on platform: gpu. ..."
        return "AssertionError (in gpu_lowering: no GPU lowering rule for pltpu.CompilerParams)"

    @staticmethod
    def _removable(hit: Hit):
        """The call ``compiler_params=`` is written in, where removing it edits only this launch
        (the launch's own call or its functools.partial decorator, in this module)."""
        site = hit.launch.option_sites.get("compiler_params")
        if site is None or hit.index.path_of(site.scope) not in (None, hit.index.path):
            return None
        if site is not hit.launch.site:
            return None
        return site

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        site = self._removable(hit)
        if site is None:
            return []
        edit = remove_kwarg(hit.index, site.node, site.scope, "compiler_params")
        if edit is None:
            return []
        # (safe: params of another backend never reach this lowering; results do not change)
        return [Fix("Remove `compiler_params=` (another backend's params; this launch's lowering takes none of them)",
                    (edit,), preferred=True, safe=True)]
