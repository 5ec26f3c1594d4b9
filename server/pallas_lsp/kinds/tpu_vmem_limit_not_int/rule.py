"""PAL644: ``pltpu.CompilerParams(vmem_limit_bytes=...)`` given a float, lowered for TPU."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Fix, TextEdit
from ...analysis.launch_specs import first_spec_defect, read_launch_specs
from ...analysis.rule_api import Hit, Report
from ...analysis.tpu_blocks import first_block_defect, one_d_tiling_defect, tiling_defect
from ...analysis.tpu_params import TpuParamsArg, number, sequence_length, tpu_params_arg
from ...rules.base import PythonRule


class TpuVmemLimitNotInt(PythonRule):
    """`vmem_limit_bytes` given a float, compiled for TPU.

    When a pallas_call is lowered for TPU, `_lowered_to_custom_call_config`
    (`jax/_src/tpu_custom_call.py`) requires `vmem_limit_bytes` to be a Python `int`: a float
    such as `64e6` or `0.75 * capacity` raises. `interpret=True` does not read it. Wrap the
    value in `int(...)`.
    """

    code = "PAL644"
    name = "tpu-vmem-limit-not-int"
    record = "tpu-vmem-limit-not-int"
    summary = "pltpu.CompilerParams(vmem_limit_bytes=...) given a float, lowered for TPU"
    label = "vmem_limit_bytes"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.TPU})  # (interpret mode never reads vmem_limit_bytes)
    launch_apis = frozenset({api.PALLAS_CALL})

    def applies(self, hit: Hit) -> bool:
        # Lowered explicitly for another platform, the TPU custom call is never built.
        return super().applies(hit) and hit.context.lowered_for in (None, "tpu")

    def _float_limit(self, hit: Hit) -> tuple[TpuParamsArg, float] | None:
        ev, launch = hit.ev, hit.launch
        arg = tpu_params_arg(ev, launch, "vmem_limit_bytes")
        if arg is None:
            return None
        value = number(ev, arg.where)
        if not isinstance(value, float):
            return None
        # The Mosaic lowering runs first: an error it surely raises comes before this one.
        if first_spec_defect(ev, launch) is not None:
            return None
        if first_block_defect(ev, launch, (tiling_defect, one_d_tiling_defect)) is not None:
            return None
        specs = read_launch_specs(ev, launch)
        semantics = tpu_params_arg(ev, launch, "dimension_semantics")
        if semantics is not None and (specs is None or sequence_length(ev, semantics.where) != specs.grid_rank):
            return None
        return arg, value

    def check(self, hit: Hit) -> Report | None:
        got = self._float_limit(hit)
        if got is None:
            return None
        arg, value = got
        node, scope, _ = arg.where
        error = "ValueError: vmem_limit_bytes must be an int: provided with a <class 'float'>."
        headline = (f"vmem_limit_bytes is the float {value!r}: lowering for TPU needs an int "
                    f"(int(...) gives {int(value)})")
        return Report(error, headline, span=hit.span_of(node, scope), key=id(node), fixable=True)

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        got = self._float_limit(hit)
        if got is None:
            return []
        arg, value = got
        node, scope, _ = arg.where
        if not float(value).is_integer() and abs(value) < 1:
            return []
        # (safe: the same limit in bytes, less a fraction of a byte)
        text = f"int({hit.code_of(node, scope)})"
        return [Fix(f"Pass the limit as an int: {text}", (TextEdit(hit.span_of(node, scope), text),),
                    preferred=True, safe=True)]
