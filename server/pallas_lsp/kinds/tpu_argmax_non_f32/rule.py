"""PAL716: an argmax/argmin over a dtype Mosaic TPU's reduce_index does not take."""
from __future__ import annotations

from ...analysis import tpu_matmul
from ...analysis.rule_api import Hit, Report
from ...rules.tpu_matmul_rule import ARG_REDUCTION_KEYS, TpuKernelOpRule, release_key

# jax 0.11 widened reduce_index to bfloat16 (with int16 or int32 indices) and reworded the error.
_BF16_FROM = (0, 11, 1)
_TAKEN_FROM_0_11 = {("float32", "int32"), ("bfloat16", "int16"), ("bfloat16", "int32")}


class TpuArgmaxNonF32(TpuKernelOpRule):
    """Mosaic TPU's argmax/argmin takes float32 (and, from jax 0.11, bfloat16) only.

    `_reduce_index_helper` lowers `argmax`/`argmin` to `tpu.reduce_index`. Up to jax 0.10.2 it
    raises `NotImplementedError: Only float32 is supported` for any other input dtype
    (bfloat16 logits, int32 costs); 0.11.2 and 0.12.0.1 take float32 with int32 indices and
    bfloat16 with int16 or int32 indices, and raise `Unsupported combination of input dtype
    (int32) and index_dtype (int32) for reduce_index` for the rest. Interpret mode computes it.
    Casting the operand to float32 first lowers, but is not offered as a fix: on a TPU v5e the
    cast bfloat16 logits compiled and gave other indices than NumPy's where values tie.
    """

    code = "PAL716"
    name = "tpu-argmax-non-f32"
    record = "tpu-argmax-non-f32"
    summary = "an argmax/argmin over a dtype other than float32 (bfloat16 from jax 0.11) in a kernel compiled for TPU"
    apis = ARG_REDUCTION_KEYS
    label = "jnp.argmax"

    def check(self, hit: Hit) -> Report | None:
        reader = self.reader(hit)
        operand = tpu_matmul.reduced_operand(hit.api, hit.site.node)
        if reader is None or operand is None:
            return None
        order = self.order(hit)
        dtype = reader.dtype(operand, hit.site.scope, order)
        if dtype is None or dtype == "float32":
            return None
        what = self.call_words(hit)
        if release_key(hit) < _BF16_FROM:
            return Report("NotImplementedError: Only float32 is supported",
                          f"{what} runs over {dtype}; Mosaic TPU's reduce_index of this jax release takes float32 only",
                          fixable=False)
        index = tpu_matmul.arg_reduction_index_dtype(reader, hit.api, hit.site.node, hit.site.scope, order)
        if index is None or (dtype, index) in _TAKEN_FROM_0_11:
            return None
        return Report(f"NotImplementedError: Unsupported combination of input dtype ({dtype}) and index_dtype "
                      f"({index}) for reduce_index",
                      f"{what} runs over {dtype} with {index} indices; Mosaic TPU's reduce_index takes float32 "
                      "(int32 indices) and bfloat16 (int16 or int32 indices) only",
                      fixable=False)
