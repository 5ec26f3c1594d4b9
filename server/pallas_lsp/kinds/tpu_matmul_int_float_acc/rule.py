"""PAL714: an integer matmul asking for a float32 result, compiled by Mosaic TPU (libtpu rejects it)."""
from __future__ import annotations

from ...analysis.findings import Fix, TextEdit
from ...analysis.fixes import value_in_module
from ...analysis.rule_api import Hit, Report
from ...rules.tpu_matmul_rule import DOT_KEYS, TpuKernelOpRule

# Shown on the chip (TPU v5e, jax 0.10.2): int8 and int32 operands with a float32 accumulator.
_SIGNED = ("int8", "int32")


class TpuMatmulIntFloatAcc(TpuKernelOpRule):
    """Mosaic TPU cannot accumulate an integer matmul in float32.

    A `dot_general` of signed integer operands with `preferred_element_type=jnp.float32`
    lowers in Python, and libtpu's Mosaic compiler then refuses the matmul: `INTERNAL: Mosaic
    failed to compile TPU kernel: float acc with int lhs. Expected float lhs.` (shown on a real
    TPU v5e with jax 0.10.2; the check lives in libtpu, so no CPU lowering shows it). Interpret
    mode computes it. Accumulate in int32 (`preferred_element_type=jnp.int32`, the MXU's
    integer path) and convert the result to float32 after the dot: for int8 operands that
    compiled and ran on the chip (int32 operands with an int32 accumulator did not: `Bad
    lhs/rhs type`, so no fix is offered for them).
    """

    code = "PAL714"
    name = "tpu-matmul-int-float-acc"
    record = "tpu-matmul-int-float-acc"
    summary = "an integer matmul with a float32 accumulator in a kernel compiled for TPU"
    apis = DOT_KEYS
    label = "jnp.dot"

    def check(self, hit: Hit) -> Report | None:
        facts = self.dot(hit)
        if facts is None or facts.preferred != "float32" or facts.operand_dtype not in _SIGNED:
            return None
        if facts.contracts_rhs_last is not False or facts.lhs_rank is None or facts.rhs_rank is None \
                or min(facts.lhs_rank, facts.rhs_rank) < 2:
            return None  # (the lowering's vector paths and rank-0 results fail otherwise, or not at all)
        return Report("MosaicError: INTERNAL: Mosaic failed to compile TPU kernel: float acc with int lhs. "
                      "Expected float lhs.",
                      f"{self.call_words(hit)} multiplies {facts.operand_dtype} operands into a float32 "
                      "accumulator, which libtpu's Mosaic compiler refuses (float acc with int lhs)",
                      fixable=facts.operand_dtype == "int8" and hit.kind == "call")

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        node = hit.argument(keyword="preferred_element_type")
        if node is None or not report.fixable or hit.kind != "call":
            return []
        call = hit.site.node
        int32, imports = value_in_module(hit.index, "{jax.numpy}.int32")
        float32, more = value_in_module(hit.index, "{jax.numpy}.float32")
        head = hit.code_of(call)
        start = hit.span_of(call)
        value = hit.span_of(node)
        # The call's text with the accumulator changed, then the cast of its result.
        lines = head.splitlines(keepends=True)
        rel_line, rel_col = value.line - start.line, (value.col - start.col if value.line == start.line else value.col)
        end_line, end_col = value.end_line - start.line, (value.end_col - start.col if value.end_line == start.line
                                                          else value.end_col)
        if rel_line != end_line:
            return []
        line = lines[rel_line]
        lines[rel_line] = line[:rel_col] + int32 + line[end_col:]
        new = "".join(lines)
        return [Fix("Accumulate in int32 and convert the result to float32 (exact while the int32 sums do not "
                    "overflow; float32 accumulation rounds instead)",
                    (TextEdit(start, f"{new}.astype({float32})"), *dict.fromkeys(imports + more)), safe=False)]
