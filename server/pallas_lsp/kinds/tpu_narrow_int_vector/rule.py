"""PAL700: vector arithmetic on 8-bit integers in a kernel compiled for TPU (Mosaic refuses it)."""
from __future__ import annotations

import ast

from ...analysis.findings import Fix
from ...analysis.kernel_values import KernelValues
from ...analysis.rule_api import Hit
from ...rules.tpu_dtype_rule import (MOSAIC_PREFIX, NARROW_INTS, DtypeDefect, TpuDtypeRule, in_order, jnp_name,
                                     ref_words, replace, widened_text)

# The integer vector operations the chip was seen to refuse for 8-bit elements (v5e, jax 0.10.2):
# additions, and ``x * 2 - y`` (a multiplication and a subtraction, with the same message).
REFUSED_OPS = (ast.Add, ast.Sub, ast.Mult)
SYMBOLS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}
MLIR_INT = {"int8": "i8", "uint8": "i8"}


class TpuNarrowIntVector(TpuDtypeRule):
    """Vector arithmetic (+, -, *) on int8/uint8 values in a kernel compiled for TPU.

    Mosaic's canonicalisation of integer vector arithmetic keeps 32-bit elements (16-bit ones
    too: an int16 addition compiled on the v5e) and refuses 8-bit ones: on a TPU v5e, adding
    int8 or uint8 vectors, or computing `x * 2 - y` on them, fails to compile with `Not
    implemented: Only vector<i16> and vector<i32> are supported, but got 'i8'. Please cast your
    input.` The message comes from Mosaic inside libtpu (lowering for TPU on a CPU does not
    show it) and interpret mode runs it clean. Cast the operands to int32, compute, and cast the
    result back (int32 arithmetic truncated to 8 bits wraps as 8-bit arithmetic does).
    """

    code = "PAL700"
    name = "tpu-narrow-int-vector"
    record = "tpu-narrow-int-vector"
    summary = "vector arithmetic (+, -, *) on int8/uint8 values in a kernel compiled for TPU, which Mosaic refuses"
    label = "+"

    def defect(self, hit: Hit, kv: KernelValues) -> DtypeDefect | None:
        found = []
        for node, scope in kv.nodes():
            if isinstance(node, ast.BinOp) and isinstance(node.op, REFUSED_OPS) \
                    and kv.dtype_of(node, scope) in NARROW_INTS and kv.storage(node, scope) == "vector":
                found.append((node, scope))
        if not found:
            return None
        # (the outermost expression of the first one: a fix must widen all of it)
        first_node, scope = in_order(kv, found)[0]
        node = _outermost(kv, first_node, scope, [f[0] for f in found if f[1] is scope])
        assert isinstance(node, ast.BinOp)
        dtype = kv.dtype_of(node, scope)
        assert dtype is not None
        symbol = SYMBOLS[type(node.op)]
        refs = [r for r in (kv.source_ref(node.left, scope), kv.source_ref(node.right, scope)) if r is not None]
        spec = next((kv.ref(r).spec for r in refs if kv.ref(r).spec is not None), None)  # type: ignore[union-attr]
        reads = " (reading " + ", ".join(ref_words(kv, r) for r in refs) + ")" if refs else ""
        error = (f"MosaicError: {MOSAIC_PREFIX}Not implemented: Only vector<i16> and vector<i32> are supported, "
                 f"but got '{MLIR_INT.get(dtype, dtype)}'. Please cast your input.")
        headline = (f"Vector `{symbol}` of {dtype} values{reads} in a kernel compiled for TPU: Mosaic has no 8-bit "
                    f"integer vector arithmetic (`vector<{MLIR_INT.get(dtype, dtype)}>`); cast to int32 and back")
        related = [(kv.ref(r).spec, f"the {dtype} block `{r}` the kernel computes on")  # type: ignore[union-attr]
                   for r in refs if kv.ref(r).spec is not None]  # type: ignore[union-attr]
        return DtypeDefect(node, scope, error, headline, anchor=spec, related=related[1:],
                           fix=_widened_fix(hit, kv, node, scope, dtype))


def _outermost(kv: KernelValues, node: ast.AST, scope, candidates: list[ast.AST]) -> ast.AST:
    """The largest refused expression that contains ``node``."""
    best = node
    for other in candidates:
        if other is not best and any(n is best for n in ast.walk(other)):
            best = other
    return best


def _widened_fix(hit: Hit, kv: KernelValues, node: ast.BinOp, scope, dtype: str) -> Fix | None:
    """``(a.astype(jnp.int32) + b.astype(jnp.int32)).astype(jnp.int8)``: the same wrapped sum.
    Offered for sums only: that is the fixed program the chip ran."""
    if not _only_additions(kv, node, scope, dtype):
        return None
    jnp, imports = jnp_name(hit)
    new = f"({_widened(hit, kv, node, scope, dtype, jnp)}).astype({jnp}.{dtype})"
    return Fix(f"Add in int32 and cast the sum back to {dtype}", (replace(hit, node, scope, new), *imports),
               safe=True)


def _only_additions(kv: KernelValues, node: ast.AST, scope, dtype: str) -> bool:
    if isinstance(node, ast.BinOp) and kv.dtype_of(node, scope) == dtype:
        return isinstance(node.op, ast.Add) and all(_only_additions(kv, side, scope, dtype)
                                                    for side in (node.left, node.right))
    return True


def _widened(hit: Hit, kv: KernelValues, node: ast.BinOp, scope, dtype: str, jnp: str) -> str:
    parts = [_widened(hit, kv, side, scope, dtype, jnp)
             if isinstance(side, ast.BinOp) and kv.dtype_of(side, scope) == dtype
             else widened_text(hit, side, scope, jnp, "int32") for side in (node.left, node.right)]
    return f"{parts[0]} {SYMBOLS[type(node.op)]} {parts[1]}"
