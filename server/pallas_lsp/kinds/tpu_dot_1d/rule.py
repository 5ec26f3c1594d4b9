"""PAL710: a dot of two vectors (a rank-0 result) in a kernel compiled by Mosaic TPU."""
from __future__ import annotations

from ...analysis import tpu_matmul
from ...analysis.findings import Fix, TextEdit
from ...analysis.rule_api import Hit, Report
from ...rules.tpu_matmul_rule import DOT_KEYS, TpuKernelOpRule

# Calls whose result has rank 0 exactly when both operands are vectors.
_VECTOR_DOTS = {f"{tpu_matmul.NP}dot", f"{tpu_matmul.NP}matmul", f"{tpu_matmul.NP}inner", f"{tpu_matmul.LAX}dot",
                tpu_matmul.MATMUL_OPERATOR}


class TpuDot1D(TpuKernelOpRule):
    """A dot whose result is a scalar cannot lower for TPU.

    Mosaic TPU lowers `dot_general` to `tpu.matmul`, whose result must be a vector:
    `_dot_general_lowering_rule` asserts that the result's MLIR type is shaped, and a rank-0
    result (the inner product of two 1-D arrays with `jnp.dot`, `@`, `jnp.inner`, `jnp.vdot`,
    an einsum to `->`) is a plain scalar, so lowering stops with a bare `AssertionError`.
    Interpret mode runs it fine. Write the inner product as an elementwise product and a sum
    (`jnp.sum(a * b)`), which the TPU lowers as a vector reduction. Reported only where the
    code says both operands are vectors (or the einsum's output is empty).
    """

    code = "PAL710"
    name = "tpu-dot-1d"
    record = "tpu-dot-1d"
    summary = "a dot of two vectors (a scalar result) in a kernel compiled for TPU"
    apis = DOT_KEYS - {f"{tpu_matmul.LAX}dot_general", f"{tpu_matmul.PL_DOT}"}
    label = "jnp.dot"

    def check(self, hit: Hit) -> Report | None:
        facts = self.dot(hit)
        if facts is None or not _scalar_result(facts):
            return None
        if facts.operand_dtype is not None and facts.operand_dtype.startswith("uint"):
            return None  # (the unsigned check comes first: PAL713)
        what = "an einsum to a scalar" if facts.api == f"{tpu_matmul.NP}einsum" else "two 1-D operands"
        return Report("AssertionError: ",
                      f"{self.call_words(hit)} of {what} has a rank-0 result, which Mosaic TPU's matmul "
                      "lowering cannot produce (it asserts a vector result type)",
                      fixable=facts.api in _VECTOR_DOTS and not facts.preferred_given and facts.precision == ())

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        facts = self.dot(hit)
        if facts is None or not report.fixable:
            return []
        jnp_name = _jnp(hit)
        if jnp_name is None:
            return []
        a, b = (_atom(hit, facts.lhs), _atom(hit, facts.rhs))
        return [Fix("Write the inner product as jnp.sum(a * b) (a vector reduction the TPU lowers; "
                    "the summation order, and so the last bits, may differ)",
                    (TextEdit(hit.span_of(hit.site.node), f"{jnp_name}.sum({a} * {b})"),), safe=False)]


def _scalar_result(facts: tpu_matmul.DotFacts) -> bool:
    if facts.api == f"{tpu_matmul.NP}einsum":
        return facts.batch_dims == 0 and facts.einsum_out_rank == 0
    if facts.api == f"{tpu_matmul.NP}vdot":
        return facts.lhs_rank is not None and facts.rhs_rank is not None and facts.lhs_rank >= 1 \
            and facts.rhs_rank >= 1
    if facts.api in _VECTOR_DOTS:
        return facts.lhs_rank == 1 and facts.rhs_rank == 1
    return False


def _atom(hit: Hit, node) -> str:
    import ast

    code = hit.code_of(node)
    return code if isinstance(node, (ast.Name, ast.Subscript, ast.Call, ast.Attribute)) else f"({code})"


def _jnp(hit: Hit) -> str | None:
    from ...analysis.fixes import local_name_for

    return local_name_for(hit.index, "jax.numpy")
