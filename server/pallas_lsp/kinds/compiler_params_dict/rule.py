"""PAL612: compiler_params= given as a dict (the old API); lowering hashes it and fails."""
from __future__ import annotations

import ast
import re

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Fix, Related, TextEdit
from ...analysis.fixes import value_in_module
from ...analysis.launch_signature import CompilerParamsDict as DictParams, compiler_params_dict
from ...analysis.rule_api import Hit, Report
from ...lowering import PINNED_RELEASE
from ...rules.base import PythonRule, record_wordings

# The dict key of the old API -> the backend's dataclass module and that dataclass's fields in
# jax 0.12.0.1 (dataclasses.fields of pltpu.CompilerParams / plt.CompilerParams): a fix is
# offered only where every inner key is one of them.
_DATACLASSES = {
    "mosaic": (api.PLTPU, frozenset({
        "dimension_semantics", "allow_input_fusion", "vmem_limit_bytes", "collective_id", "has_side_effects",
        "flags", "internal_scratch_in_bytes", "serialization_format", "disable_bounds_checks",
        "disable_semaphore_checks", "skip_device_barrier", "allow_collective_id_without_custom_barrier",
        "shape_invariant_numerics", "use_tc_tiling_on_sc", "needs_layout_passes",
        "fuse_transposed_lhs_in_matmul", "opt_level"})),
    "triton": (api.PLTRITON, frozenset({"num_warps", "num_stages"})),
}


# jax 0.8.3 took compiler_params as {backend: CompilerParams} (_normalize_compiler_params in
# jax/_src/pallas/pallas_call.py), keyed by these backends.
_MAPPING_BACKENDS = ("mosaic_tpu", "mosaic_gpu", "triton")


def _mapping_releases(slug: str) -> frozenset[str]:
    """The releases that take the mapping: those of the record's "Unknown backend" wording."""
    return frozenset(r for message, releases in record_wordings(slug).items()
                     if message.startswith("Unknown backend") for r in releases)


class CompilerParamsDict(PythonRule):
    """`compiler_params=` is a dict; jax 0.12 takes the backend's `CompilerParams` dataclass.

    `pallas_call` keeps `compiler_params` as a parameter of the `pallas_call` primitive. Tracing
    accepts a dict, but lowering hashes the primitive's parameters
    (jax/_src/interpreters/mlir.py) and a dict is unhashable: `TypeError: unhashable type:
    'dict'` -- on TPU, on GPU and in interpret mode on the CPU alike. Pass the backend's
    dataclass: `pltpu.CompilerParams(dimension_semantics=...)` for `dict(mosaic=...)`,
    `plt.CompilerParams(num_warps=...)` for `{"triton": ...}`.
    """

    code = "PAL612"
    name = "compiler-params-dict"
    record = "compiler-params-dict"
    summary = "compiler_params= given as a dict instead of the backend's CompilerParams"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    label = "compiler_params="
    modes = frozenset(Mode)  # (every lowering hashes it: TPU, GPU, interpret mode on the CPU)

    def applies(self, hit: Hit) -> bool:
        return True

    def check(self, hit: Hit) -> Report | None:
        params = compiler_params_dict(hit.ev, hit.launch)
        if params is None:
            return None
        related = [Related(hit.span_of(hit.launch.site.node, hit.launch.site.scope), "the `pallas_call`")]
        if params.written is not params.node:
            related.insert(0, Related(hit.span_of(params.written, params.written_scope), "the dict, built here"))
        if (hit.release.version or PINNED_RELEASE) in _mapping_releases(self.record):
            return self._mapping_check(hit, params, tuple(related))
        backend = _backend(params)
        instead = ("the backend's `CompilerParams` dataclass" if backend is None
                   else f"`{_short(backend[0])}.CompilerParams(...)`")
        return Report("TypeError: unhashable type: 'dict'",
                      f"`compiler_params=` is a dict: lowering hashes it and fails; pass {instead}",
                      span=hit.span_of(params.node, params.scope), key=("compiler-params-dict",),
                      related=tuple(related))

    def _mapping_check(self, hit: Hit, params: DictParams, related: tuple[Related, ...]) -> Report | None:
        """jax 0.8.3 takes a mapping from backend name to that backend's CompilerParams and checks
        it when the call is built, entry by entry: an unknown key, then a value that is not a
        CompilerParams (a plain dict), raise ValueError; a mapping it accepts is quiet."""
        if params.entries is None:
            return None
        for key, inner in params.entries.items():
            if key not in _MAPPING_BACKENDS:
                error = f"ValueError: Unknown backend in compiler_params: {key}"
                headline = (f"`compiler_params=` names the backend `{key}`: jax {hit.release.version} takes "
                            f"{', '.join(repr(b) for b in _MAPPING_BACKENDS)} keys, each with its CompilerParams")
            elif inner is not None:
                error = f"ValueError: Unexpected compiler_params for backend {key}: {{...}}"
                headline = (f"`compiler_params=` gives `{key}` a plain dict: jax {hit.release.version} takes its "
                            f"CompilerParams dataclass there")
            else:
                return None  # (a value that is not a plain dict: not read here)
            return Report(error, headline, span=hit.span_of(params.node, params.scope),
                          key=("compiler-params-dict",), related=related)
        return None

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        params = compiler_params_dict(hit.ev, hit.launch)
        if params is None or hit.index.path_of(params.written_scope) not in (None, hit.index.path):
            return []
        backend = _backend(params)
        if backend is None or (isinstance(params.node, ast.Name) and _read_elsewhere(hit, params.node.id)):
            return []  # (a dict read by other code too: rewriting it there could break that code)
        module, inner = backend
        arguments = ", ".join(f"{k}={hit.code_of(v, params.written_scope)}" for k, v in inner.items())
        text, imports = value_in_module(hit.index, f"{{{module}}}.CompilerParams({arguments})")
        edits = (TextEdit(hit.span_of(params.written, params.written_scope), text), *imports)
        # (safe: the same settings, in the form jax 0.12 hashes)
        return [Fix(f"Pass `{text.split('(')[0]}(...)` instead of a dict", edits, preferred=True, safe=True)]


def _backend(params: DictParams):
    """(dataclass module, inner entries) where the dict names one backend whose dataclass has
    every field it sets; None otherwise."""
    if params.entries is None or len(params.entries) != 1:
        return None
    (key, inner), = params.entries.items()
    known = _DATACLASSES.get(key)
    if known is None or inner is None or not set(inner) <= known[1]:
        return None
    return known[0], inner


def _read_elsewhere(hit: Hit, name: str) -> bool:
    """The name is written more than where it is bound and where the launch reads it."""
    return len(re.findall(rf"\b{re.escape(name)}\b", hit.index.text)) > 2


def _short(module: str) -> str:
    return {api.PLTPU: "pltpu", api.PLTRITON: "plt"}.get(module, module)


__all__ = ["CompilerParamsDict"]
