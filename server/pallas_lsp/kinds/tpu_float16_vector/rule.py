"""PAL701: a float16 vector (read from VMEM, or cast from float32) in a kernel compiled for TPU."""
from __future__ import annotations

import ast

from ...analysis.kernel_values import KernelValues
from ...analysis.rule_api import Hit
from ...rules.tpu_dtype_rule import MOSAIC_PREFIX, DtypeDefect, TpuDtypeRule, in_order, ref_words


class TpuFloat16Vector(TpuDtypeRule):
    """A float16 vector (read from VMEM, or cast from float32) in a kernel compiled for TPU.

    TPUs have no IEEE half-precision vector type (their 16-bit float is bfloat16): Mosaic
    refuses to load a vector of float16 from a VMEM Ref (`Invalid vector type for load`) and to
    pack a float32 vector into float16 (`failed to legalize operation 'tpu.pack_subelements'`).
    The message comes from Mosaic inside libtpu; lowering for
    TPU on a CPU does not show it, and interpret mode runs the kernel clean. Pass bfloat16 or
    float32 operands (cast outside the kernel), and return float32 or bfloat16.
    """

    code = "PAL701"
    name = "tpu-float16-vector"
    record = "tpu-float16-vector"
    summary = "a float16 vector (loaded from VMEM, or cast from float32) in a kernel compiled for TPU"
    label = "float16"

    def defect(self, hit: Hit, kv: KernelValues) -> DtypeDefect | None:
        found = []
        for node, scope in kv.nodes():
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                ref = kv.ref_name(node.value, scope)
                if ref is not None and kv.ref_dtype(ref) == "float16" and kv.in_vector_memory(ref) \
                        and kv.storage(node, scope) == "vector":
                    found.append((node, scope))
            elif _narrowing_cast(kv, node, scope):
                found.append((node, scope))
        if not found:
            return None
        node, scope = in_order(kv, found)[0]
        if isinstance(node, ast.Subscript):
            ref = kv.ref_name(node.value, scope)
            assert ref is not None
            error = f"MosaicError: {MOSAIC_PREFIX}Invalid vector type for load"
            headline = (f"Reading a float16 vector from {ref_words(kv, ref)} in VMEM, in a kernel compiled for TPU: "
                        "the TPU has no float16 vectors (its 16-bit float is bfloat16)")
            fact = kv.ref(ref)
            related = [(fact.declared, f"`{ref}` is declared float16 here")] if fact is not None and fact.declared \
                else []
            return DtypeDefect(node, scope, error, headline, related=related)
        assert isinstance(node, ast.Call)
        source = kv.dtype_of(node.func.value, scope) if isinstance(node.func, ast.Attribute) else None
        error = (f"MosaicError: {MOSAIC_PREFIX}failed to legalize operation 'tpu.pack_subelements': ... "
                 f"(vector<...x{_MLIR.get(source or '', '?')}>) -> vector<...xf16>")
        headline = (f"A cast of a {source} vector to float16 in a kernel compiled for TPU: Mosaic cannot pack "
                    "float16 vectors (the TPU has none; its 16-bit float is bfloat16)")
        return DtypeDefect(node, scope, error, headline)


_MLIR = {"float32": "f32", "bfloat16": "bf16", "int32": "i32"}


def _narrowing_cast(kv: KernelValues, node: ast.AST, scope) -> bool:
    """``x.astype(jnp.float16)`` of a float32 vector (the chip refused packing it)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "astype"):
        return False
    return kv.dtype_of(node, scope) == "float16" and kv.dtype_of(node.func.value, scope) == "float32" \
        and kv.storage(node.func.value, scope) == "vector"
