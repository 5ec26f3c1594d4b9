"""PAL615: a CompilerParams keyword the params class of the checked jax release does not take."""

from __future__ import annotations

import difflib

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.evaluate import CallVal
from ...analysis.findings import Fix, Related, TextEdit
from ...analysis.fixes import remove_kwarg
from ...analysis.module import Span
from ...analysis.rule_api import Hit, Report
from ...analysis.tpu_params import PARAMS_BACKENDS
from ...lowering import PINNED_RELEASE
from ...rules.base import PythonRule

# The keyword arguments each params class's __init__ takes, per shipped jax release
# (inspect.signature under each release's wheel; 0.8.3 read from its source at the tag).
_FIELDS = {
    "0.8.3": {
        "tpu": frozenset(
            {
                "dimension_semantics",
                "allow_input_fusion",
                "vmem_limit_bytes",
                "collective_id",
                "has_side_effects",
                "flags",
                "internal_scratch_in_bytes",
                "serialization_format",
                "kernel_type",
                "disable_bounds_checks",
                "skip_device_barrier",
                "allow_collective_id_without_custom_barrier",
                "shape_invariant_numerics",
                "use_tc_tiling_on_sc",
            }
        ),
        "triton": frozenset({"num_warps", "num_stages"}),
        "mosaic_gpu": frozenset(
            {
                "approx_math",
                "dimension_semantics",
                "max_concurrent_steps",
                "unsafe_no_auto_barriers",
                "profile_space",
                "profile_dir",
                "lowering_semantics",
            }
        ),
    },
    "0.9.2": {
        "tpu": frozenset(
            {
                "dimension_semantics",
                "allow_input_fusion",
                "vmem_limit_bytes",
                "collective_id",
                "has_side_effects",
                "flags",
                "internal_scratch_in_bytes",
                "serialization_format",
                "kernel_type",
                "disable_bounds_checks",
                "disable_semaphore_checks",
                "skip_device_barrier",
                "allow_collective_id_without_custom_barrier",
                "shape_invariant_numerics",
                "use_tc_tiling_on_sc",
            }
        ),
        "triton": frozenset({"num_warps", "num_stages"}),
        "mosaic_gpu": frozenset(
            {
                "approx_math",
                "dimension_semantics",
                "max_concurrent_steps",
                "unsafe_no_auto_barriers",
                "reduction_scratch_bytes",
                "profile_space",
                "profile_dir",
                "lowering_semantics",
            }
        ),
    },
    "0.10.2": {
        "tpu": frozenset(
            {
                "dimension_semantics",
                "allow_input_fusion",
                "vmem_limit_bytes",
                "collective_id",
                "has_side_effects",
                "flags",
                "internal_scratch_in_bytes",
                "serialization_format",
                "disable_bounds_checks",
                "disable_semaphore_checks",
                "skip_device_barrier",
                "allow_collective_id_without_custom_barrier",
                "shape_invariant_numerics",
                "use_tc_tiling_on_sc",
                "needs_layout_passes",
                "fuse_transposed_lhs_in_matmul",
            }
        ),
        "triton": frozenset({"num_warps", "num_stages"}),
        "mosaic_gpu": frozenset(
            {
                "approx_math",
                "dimension_semantics",
                "max_concurrent_steps",
                "unsafe_no_auto_barriers",
                "reduction_scratch_bytes",
                "profile_space",
                "profile_dir",
                "profile_trace_scope",
                "lowering_semantics",
            }
        ),
    },
    "0.11.2": {
        "tpu": frozenset(
            {
                "dimension_semantics",
                "allow_input_fusion",
                "vmem_limit_bytes",
                "collective_id",
                "has_side_effects",
                "flags",
                "internal_scratch_in_bytes",
                "serialization_format",
                "disable_bounds_checks",
                "disable_semaphore_checks",
                "skip_device_barrier",
                "allow_collective_id_without_custom_barrier",
                "shape_invariant_numerics",
                "use_tc_tiling_on_sc",
                "needs_layout_passes",
                "fuse_transposed_lhs_in_matmul",
                "opt_level",
            }
        ),
        "triton": frozenset({"num_warps", "num_stages"}),
        "mosaic_gpu": frozenset(
            {
                "approx_math",
                "dimension_semantics",
                "max_concurrent_steps",
                "unsafe_no_auto_barriers",
                "reduction_scratch_bytes",
                "profile_space",
                "profile_dir",
                "profile_trace_scope",
                "profile_bounds_check",
                "lowering_semantics",
                "skip_device_barrier",
            }
        ),
    },
    "0.12.0.1": {
        "tpu": frozenset(
            {
                "dimension_semantics",
                "allow_input_fusion",
                "vmem_limit_bytes",
                "collective_id",
                "has_side_effects",
                "flags",
                "internal_scratch_in_bytes",
                "serialization_format",
                "disable_bounds_checks",
                "disable_semaphore_checks",
                "skip_device_barrier",
                "allow_collective_id_without_custom_barrier",
                "shape_invariant_numerics",
                "use_tc_tiling_on_sc",
                "needs_layout_passes",
                "fuse_transposed_lhs_in_matmul",
                "opt_level",
            }
        ),
        "triton": frozenset({"num_warps", "num_stages"}),
        "mosaic_gpu": frozenset(
            {
                "approx_math",
                "dimension_semantics",
                "max_concurrent_steps",
                "unsafe_no_auto_barriers",
                "reduction_scratch_bytes",
                "profile_space",
                "profile_dir",
                "profile_trace_scope",
                "profile_bounds_check",
                "lowering_semantics",
                "skip_device_barrier",
                "is_multi_process",
            }
        ),
    },
}

_CLASS = {"tpu": "pltpu.CompilerParams", "triton": "plt.CompilerParams", "mosaic_gpu": "plgpu.CompilerParams"}


class CompilerParamsUnknownField(PythonRule):
    """A keyword that the backend's `CompilerParams` does not take, in the checked jax release.

    `pltpu.CompilerParams`, `plt.CompilerParams` and `plgpu.CompilerParams` take only their own
    fields, which change between releases (`opt_level` came to the TPU class in jax 0.11,
    `kernel_type` left it after 0.9); any other keyword raises TypeError "CompilerParams.__init__()
    got an unexpected keyword argument" when the params are built, before any lowering, so in
    every mode, interpret mode included. A GPU knob (`num_warps`, `num_stages`) passed to the
    TPU class is the usual case. Remove the keyword, or use the field of that name.
    """

    code = "PAL615"
    name = "compiler-params-unknown-field"
    record = "compiler-params-unknown-field"
    summary = "a CompilerParams(...) keyword that the class does not take in the checked jax release"
    label = "CompilerParams"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL, api.PL_KERNEL, api.PLGPU_KERNEL})
    modes = frozenset(Mode)  # (raised when the params are built, whatever the mode)
    launch_apis = None

    def applies(self, hit: Hit) -> bool:
        return hit.context.mode in self.modes  # (on a CPU host too: nothing is lowered yet)

    def _unknown(self, hit: Hit):
        """(the params call, its backend, the first keyword the release's class lacks)."""
        opt = hit.launch.options.get("compiler_params")
        if opt is None:
            return None
        v = hit.ev.returned(hit.ev.value(*opt))
        if not isinstance(v, CallVal):
            return None
        backend = PARAMS_BACKENDS.get(hit.ev.called_api(v) or "")
        release = hit.release.version or PINNED_RELEASE
        fields = _FIELDS.get(release, {}).get(backend or "")
        if fields is None:
            return None  # (a release whose fields are not known)
        for keyword in v.site.node.keywords:
            if keyword.arg is not None and keyword.arg not in fields:
                return v, backend, keyword, release, fields
        return None

    def check(self, hit: Hit) -> Report | None:
        got = self._unknown(hit)
        if got is None:
            return None
        call, backend, keyword, release, fields = got
        site = call.site
        span = hit.index.span(keyword, site.scope)
        related = []
        option = hit.launch.options["compiler_params"]
        used = hit.index.span(option[0], option[1])
        if used.line != span.line:
            related.append(Related(used, "the params passed to the launch"))
        owners = [b for b, table in _FIELDS[release].items() if keyword.arg in table and b != backend]
        elsewhere = f" ({_CLASS[owners[0]]} has it)" if owners else ""
        close = self._closest(keyword.arg, fields)
        hint = f"; did you mean `{close}`?" if close else ""
        headline = (
            f"{_CLASS[backend]} takes no `{keyword.arg}=` in jax {release}{elsewhere}: building the params "
            f"raises TypeError{hint}"
        )
        error = f"TypeError: CompilerParams.__init__() got an unexpected keyword argument '{keyword.arg}'"
        return Report(
            error,
            headline,
            span=span,
            key=id(keyword),
            related=tuple(related),
            fixable=hit.index.path_of(site.scope) in (None, hit.index.path),
        )

    @staticmethod
    def _closest(name: str, fields) -> str | None:
        found = difflib.get_close_matches(name, sorted(fields), n=1, cutoff=0.75)
        return found[0] if found else None

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        got = self._unknown(hit)
        if got is None:
            return []
        call, _, keyword, _, fields = got
        site = call.site
        if hit.index.path_of(site.scope) not in (None, hit.index.path):
            return []
        out = []
        close = self._closest(keyword.arg, fields)
        if close is not None and not any(k.arg == close for k in site.node.keywords):
            start = hit.index.span(keyword, site.scope)
            name_only = Span(start.line, start.col, start.line, start.col + len(keyword.arg))
            # (unsafe: the setting now takes effect, which can change how the kernel compiles)
            out.append(
                Fix(
                    f"Rename `{keyword.arg}=` to `{close}=`", (TextEdit(name_only, close),), preferred=False, safe=False
                )
            )
        edit = remove_kwarg(hit.index, site.node, site.scope, keyword.arg)
        if edit is not None:
            # (safe: the keyword never took effect; the params are built as without it)
            out.insert(
                0,
                Fix(f"Remove `{keyword.arg}=` (not a field of this params class)", (edit,), preferred=True, safe=True),
            )
        return out
