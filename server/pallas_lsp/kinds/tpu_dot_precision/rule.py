"""PAL711: a dot precision Mosaic TPU's lowering does not take, in a kernel compiled for TPU."""
from __future__ import annotations

import ast

from ...analysis import tpu_matmul
from ...analysis.findings import Fix, TextEdit
from ...analysis.rule_api import Hit, Report
from ...rules.tpu_matmul_rule import DOT_KEYS, TpuKernelOpRule, release_key

# lax.Precision.HIGH lowers (to contract_precision<bf16x3>) from jax 0.11.1 on; 0.10.2 raises.
_HIGH_LOWERS_FROM = (0, 11, 1)


class TpuDotPrecision(TpuKernelOpRule):
    """Mosaic TPU lowers a dot with one precision for both operands, DEFAULT or HIGHEST.

    `_dot_general_lowering_rule` raises `NotImplementedError: Per-operand dot precision
    unsupported` for a precision pair that differs per operand (`precision=(HIGHEST,
    DEFAULT)`), in every release checked; and up to jax 0.10.2 it lowers only
    `Precision.DEFAULT` and `Precision.HIGHEST`, so `Precision.HIGH` (also spelled `"high"`,
    `"tensorfloat32"`, `"bfloat16_3x"`, or `pl.dot(..., allow_tf32=True)`) raises
    `Unsupported dot precision: HIGH` (0.11.2 and 0.12.0.1 lower it). Interpret mode ignores
    the precision. Ask `HIGHEST` (float32 contraction: more precise, slower) or `DEFAULT`, one
    value for both operands.
    """

    code = "PAL711"
    name = "tpu-dot-precision"
    record = "tpu-dot-precision"
    summary = "a dot precision Mosaic TPU does not lower (per-operand, or HIGH before jax 0.11)"
    apis = DOT_KEYS - {tpu_matmul.MATMUL_OPERATOR}
    label = "jnp.dot"

    def check(self, hit: Hit) -> Report | None:
        facts = self.dot(hit)
        if facts is None or not facts.precision:
            return None
        if facts.operand_dtype is not None and facts.operand_dtype.startswith("uint"):
            return None  # (PAL713 is raised first)
        if facts.lhs_rank == 1 and facts.rhs_rank == 1 or facts.einsum_out_rank == 0:
            return None  # (PAL710's assertion comes first)
        if facts.contracts_rhs_last is not False and facts.operand_dtype != "float32":
            return None  # (a one-row rhs of another dtype takes the matrix-vector path, with no precision)
        first, second = facts.precision
        if first != second:
            return Report("NotImplementedError: Per-operand dot precision unsupported",
                          f"{self.call_words(hit)} asks precision {first} for one operand and {second} for the "
                          "other; Mosaic TPU's dot lowering takes one precision for both", fixable=False)
        if first == "HIGH" and release_key(hit) < _HIGH_LOWERS_FROM:
            return Report("NotImplementedError: Unsupported dot precision: HIGH",
                          f"{self.call_words(hit)} asks Precision.HIGH, which Mosaic TPU's dot lowering of this "
                          "jax release does not take (only DEFAULT and HIGHEST)",
                          fixable=hit.argument(keyword="precision") is not None)
        return None

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        node = hit.argument(keyword="precision")
        if node is None or not report.fixable:
            return []
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = '"highest"'
        elif isinstance(node, ast.Attribute) and node.attr == "HIGH":
            text = hit.code_of(node.value) + ".HIGHEST"
        else:
            return []
        return [Fix("Ask precision HIGHEST (a float32 contraction: more precise and slower, so results change "
                    "in the low bits)", (TextEdit(hit.span_of(node), text),), safe=False)]
