"""PAL702: elementwise arithmetic on fp8 vectors in a kernel compiled for TPU."""
from __future__ import annotations

import ast

from ...analysis.findings import Fix
from ...analysis.kernel_values import KernelValues
from ...analysis.rule_api import Hit
from ...rules.tpu_dtype_rule import (MOSAIC_PREFIX, DtypeDefect, TpuDtypeRule, in_order, jnp_name, replace,
                                     widened_text)

# Elementwise float arithmetic the chip was seen to refuse on fp8 vectors (v5e, jax 0.10.2).
REFUSED_OPS = {ast.Mult: ("mulf", "*"), ast.Add: ("addf", "+")}
MLIR_FLOAT = {"float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2", "float8_e4m3b11fnuz": "f8E4M3B11FNUZ",
              "float8_e4m3fnuz": "f8E4M3FNUZ", "float8_e5m2fnuz": "f8E5M2FNUZ"}


class TpuFp8Elementwise(TpuDtypeRule):
    """Elementwise arithmetic on float8 vectors in a kernel compiled for TPU.

    A TPU v5e has no fp8 vector arithmetic, and Mosaic does not widen it for that chip: an
    `arith.mulf` of two `float8_e4m3fn` vectors fails to compile with `failed to legalize
    operation 'arith.mulf'` (`arith.addf` for a sum). Loading fp8 blocks, casting them, and fp8 matmuls with a float32
    accumulator compile. The message comes from Mosaic inside libtpu; interpret mode runs the
    kernel clean. Widen the operands to float32, compute, and cast the result back.
    """

    code = "PAL702"
    name = "tpu-fp8-elementwise"
    record = "tpu-fp8-elementwise"
    summary = "elementwise arithmetic on float8 vectors in a kernel compiled for TPU"
    label = "*"

    def defect(self, hit: Hit, kv: KernelValues) -> DtypeDefect | None:
        found = []
        for node, scope in kv.nodes():
            if isinstance(node, ast.BinOp) and type(node.op) in REFUSED_OPS \
                    and kv.dtype_of(node, scope) in MLIR_FLOAT and kv.storage(node, scope) == "vector":
                found.append((node, scope))
        if not found:
            return None
        node, scope = in_order(kv, found)[0]
        assert isinstance(node, ast.BinOp)
        dtype = kv.dtype_of(node, scope)
        assert dtype is not None
        op, symbol = REFUSED_OPS[type(node.op)]
        vector = f"vector<...x{MLIR_FLOAT[dtype]}>"  # (Mosaic prints its packed tile shape, not the array's)
        error = f"MosaicError: {MOSAIC_PREFIX}failed to legalize operation 'arith.{op}': ... ({vector}, {vector})"
        headline = (f"Elementwise `{symbol}` of {dtype} vectors in a kernel compiled for TPU: the chip has no fp8 "
                    f"vector arithmetic (`arith.{op}` on `{vector}`); compute in float32 and cast back")
        fix = None
        if isinstance(node.op, ast.Mult):  # (the fixed program the chip ran is a product)
            jnp, imports = jnp_name(hit)
            parts = [widened_text(hit, side, scope, jnp, "float32") for side in (node.left, node.right)]
            fix = Fix(f"Compute the {symbol} in float32 and cast the result back to {dtype}",
                      (replace(hit, node, scope, f"({parts[0]} {symbol} {parts[1]}).astype({jnp}.{dtype})"),
                       *imports), safe=True)
        return DtypeDefect(node, scope, error, headline, fix=fix)
