"""PAL704: integer arithmetic on a narrow scalar read from SMEM in a kernel compiled for TPU."""
from __future__ import annotations

import ast

from ...analysis.findings import Fix
from ...analysis.kernel_values import KernelValues
from ...analysis.rule_api import Hit
from ...rules.tpu_dtype_rule import (ARITH_NAMES, MOSAIC_PREFIX, DtypeDefect, TpuDtypeRule, in_order, jnp_name,
                                     ref_words, replace, widened_text)

# Scalar integer widths the chip was seen to refuse in arithmetic (v5e, jax 0.10.2: int8 and uint8
# multiplications, an int16 addition): Mosaic's scalar core computes integers in 32 bits only.
REFUSED = frozenset({"int8", "uint8", "int16", "uint16"})
REFUSED_OPS = (ast.Add, ast.Mult)
MLIR_INT = {"int8": "i8", "uint8": "i8", "int16": "i16", "uint16": "i16"}


class TpuSmemNarrowIntArith(TpuDtypeRule):
    """Arithmetic on an 8- or 16-bit integer scalar read from SMEM, in a kernel compiled for TPU.

    A scalar read from an SMEM Ref (`pl.BlockSpec(memory_space=pltpu.SMEM)`, a scalar-prefetch
    operand, SMEM scratch) lives in the TPU's scalar core, whose integer arithmetic Mosaic
    lowers for 32-bit values only: multiplying int8 scalars, or adding int16 ones, fails to
    compile with `Not implemented: Only i32 arith.muli is supported, but got 'i8'. Please cast
    your input to i32.` The message comes from Mosaic inside libtpu; interpret mode runs it clean. Cast the
    scalar to int32 first (`w_ref[i].astype(jnp.int32) * 2`).
    """

    code = "PAL704"
    name = "tpu-smem-narrow-int-arith"
    record = "tpu-smem-narrow-int-arith"
    summary = "integer arithmetic on an 8- or 16-bit scalar read from SMEM in a kernel compiled for TPU"
    label = "*"

    def defect(self, hit: Hit, kv: KernelValues) -> DtypeDefect | None:
        found = []
        for node, scope in kv.nodes():
            if isinstance(node, ast.BinOp) and isinstance(node.op, REFUSED_OPS) \
                    and kv.dtype_of(node, scope) in REFUSED and kv.storage(node, scope) == "scalar":
                found.append((node, scope))
        if not found:
            return None
        node, scope = in_order(kv, found)[0]
        assert isinstance(node, ast.BinOp)
        dtype = kv.dtype_of(node, scope)
        assert dtype is not None
        op = ARITH_NAMES[type(node.op)]
        refs = [r for r in (kv.source_ref(node.left, scope), kv.source_ref(node.right, scope)) if r is not None]
        reads = " read from " + ", ".join(ref_words(kv, r) for r in dict.fromkeys(refs)) if refs else ""
        mlir = MLIR_INT.get(dtype, dtype)
        error = (f"MosaicError: {MOSAIC_PREFIX}Not implemented: Only i32 arith.{op}i is supported, but got "
                 f"'{mlir}'. Please cast your input to i32.")
        headline = (f"Scalar {dtype} arithmetic (`arith.{op}i` on `{mlir}`) on a value{reads} in SMEM, in a kernel "
                    "compiled for TPU: Mosaic computes scalar integers in 32 bits only; cast to int32 first")
        related = [(kv.ref(r).declared, f"`{r}` is a {dtype} Ref in SMEM")  # type: ignore[union-attr]
                   for r in dict.fromkeys(refs)
                   if kv.ref(r).declared is not None]  # type: ignore[union-attr]
        return DtypeDefect(node, scope, error, headline, related=related, fix=_widened_fix(hit, kv, node, scope, dtype))


def _widened_fix(hit: Hit, kv: KernelValues, node: ast.BinOp, scope, dtype: str) -> Fix | None:
    """Each narrow operand cast to int32 (a Python number stays as it is): the result is int32,
    which is what the code after it must take (so the fix is not marked safe)."""
    jnp, imports = jnp_name(hit)
    parts = [widened_text(hit, side, scope, jnp, "int32") for side in (node.left, node.right)]
    op = {ast.Add: "+", ast.Mult: "*"}[type(node.op)]
    return Fix(f"Cast the {dtype} scalars to int32 before the arithmetic",
               (replace(hit, node, scope, f"{parts[0]} {op} {parts[1]}"), *imports))
