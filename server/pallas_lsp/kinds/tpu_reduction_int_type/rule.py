"""PAL715: a max, min or sum reduction over an integer type other than int32, compiled by Mosaic TPU."""
from __future__ import annotations

from ...analysis import tpu_matmul
from ...analysis.findings import Fix
from ...analysis.rule_api import Hit, Report
from ...rules.tpu_matmul_rule import REDUCTION_KEYS, TpuKernelOpRule, cast_edits


class TpuReductionIntType(TpuKernelOpRule):
    """Mosaic TPU reduces floats and int32 only.

    `reduce_lowering_rule` (max, min and sum) lowers a reduction over a floating dtype or
    int32; over an unsigned type it raises `NotImplementedError: Reductions over unsigned
    integers not implemented.`, over any other integer type `Reductions over int8 not
    implemented.` (int16...). What reaches the lowering is the dtype after jnp's promotion:
    `jnp.sum` of int8, int16 or bool sums in int32 (fine) and of uint8 in uint32 (refused),
    while `jnp.max`/`jnp.min` keep the dtype. Interpret mode computes it. Cast the operand to
    int32 first (exact for 8- and 16-bit integers); the result is then int32.
    """

    code = "PAL715"
    name = "tpu-reduction-int-type"
    record = "tpu-reduction-int-type"
    summary = "a max/min/sum reduction over an integer type other than int32 in a kernel compiled for TPU"
    apis = REDUCTION_KEYS
    label = "jnp.max"

    def check(self, hit: Hit) -> Report | None:
        reader = self.reader(hit)
        if reader is None:
            return None
        node = hit.site.node
        dtype = tpu_matmul.reduce_input_dtype(reader, hit.api, node, hit.site.scope, self.order(hit))
        if not tpu_matmul.reduction_rejects(dtype):
            return None
        operand = tpu_matmul.reduced_operand(hit.api, node)
        written = reader.dtype(operand, hit.site.scope, self.order(hit)) if operand is not None else None
        message = "Reductions over unsigned integers not implemented." if dtype.startswith("uint") \
            else f"Reductions over {dtype} not implemented."
        promoted = f" (jnp promotes {written} to {dtype} first)" if written != dtype else ""
        return Report(f"NotImplementedError: {message}",
                      f"{self.call_words(hit)} reduces {dtype}{promoted}, and Mosaic TPU's reduction lowering "
                      "takes floats and int32 only",
                      fixable=written is not None and written != "uint32" and (written.startswith(("int", "uint"))))

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        operand = tpu_matmul.reduced_operand(hit.api, hit.site.node)
        if operand is None or not report.fixable:
            return []
        return [Fix("Cast the operand to int32 before reducing (exact for these values; the result is int32, "
                    "not the original dtype)", cast_edits(hit, operand, "int32"), safe=False)]
