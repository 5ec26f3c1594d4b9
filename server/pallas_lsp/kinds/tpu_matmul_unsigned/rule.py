"""PAL713: a matmul of unsigned integers in a kernel compiled by Mosaic TPU."""
from __future__ import annotations

from ...analysis.rule_api import Hit, Report
from ...rules.tpu_matmul_rule import DOT_KEYS, TpuKernelOpRule


class TpuMatmulUnsigned(TpuKernelOpRule):
    """Mosaic TPU rejects a dot of unsigned integers.

    `_dot_general_lowering_rule` refuses any `dot_general` operand of an unsigned integer
    dtype (`NotImplementedError: Unsigned integer dtype uint8 is not supported for dot_general
    (matmul) on the Pallas Mosaic TPU backend because dot_general interprets all integer inputs
    as signed`), in every release checked: `uint8 @ uint8`, `lax.dot_general` of uint
    operands (a uint operand beside a signed one also fails; it is reported only where both
    dtypes are told and both are unsigned). Interpret mode computes it. Cast the operands to a signed
    type wide enough to
    hold their values before the dot: uint8 and uint16 fit int32 exactly, so with
    `preferred_element_type=jnp.int32` the result is unchanged.
    """

    code = "PAL713"
    name = "tpu-matmul-unsigned"
    record = "tpu-matmul-unsigned"
    summary = "a matmul of unsigned integer operands in a kernel compiled for TPU"
    apis = DOT_KEYS
    label = "jnp.dot"

    def check(self, hit: Hit) -> Report | None:
        facts = self.dot(hit)
        if facts is None or facts.operand_dtype is None or not facts.operand_dtype.startswith("uint"):
            return None
        dtype = facts.operand_dtype
        return Report(f"NotImplementedError: Unsigned integer dtype {dtype} is not supported for dot_general "
                      "(matmul) on the Pallas Mosaic TPU backend because dot_general interprets all integer "
                      "inputs as signed. Consider casting to a signed type before the dot operation.",
                      f"{self.call_words(hit)} multiplies {dtype} operands, and Mosaic TPU's dot_general lowering "
                      "takes signed integers only",
                      fixable=False)
