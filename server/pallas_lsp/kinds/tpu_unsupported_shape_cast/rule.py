"""PAL705: a new minor (lane) dimension on a sub-32-bit vector in a kernel compiled for TPU."""
from __future__ import annotations

import ast

from ...analysis.kernel_values import KernelValues, bits
from ...analysis.rule_api import Hit
from ...rules.tpu_dtype_rule import MOSAIC_PREFIX, DtypeDefect, TpuDtypeRule, in_order

_EXPAND = {"jax.numpy.expand_dims", "jax.lax.expand_dims"}


class TpuUnsupportedShapeCast(TpuDtypeRule):
    """A trailing size-1 dimension added to a 16- or 8-bit vector in a kernel compiled for TPU.

    Mosaic infers a vector layout for each shape cast; inserting a new minor (lane) dimension
    that is not a no-op is supported for 32-bit element types only, so `jnp.expand_dims(x, -1)`
    or `x[:, :, None]` of a bfloat16 or int8 tile of rank >= 2 fails to compile with
    `infer-vector-layout: unsupported shape cast`. The same on float32 compiles. The message
    comes from Mosaic inside libtpu; interpret mode runs the kernel clean. Widen the value to
    float32 (int32) before adding the dimension, and cast back after the broadcast.
    """

    code = "PAL705"
    name = "tpu-unsupported-shape-cast"
    record = "tpu-unsupported-shape-cast"
    summary = "a new minor dimension on a bfloat16/int8 vector (expand_dims(x, -1)) in a kernel compiled for TPU"
    label = "jnp.expand_dims"

    def defect(self, hit: Hit, kv: KernelValues) -> DtypeDefect | None:
        found = []
        for node, scope in kv.nodes():
            operand = self._minor_insert(hit, kv, node, scope)
            if operand is None:
                continue
            dtype = kv.dtype_of(operand, scope)
            width = bits(dtype)
            if width is not None and width < 32 and kv.storage(operand, scope) == "vector":
                found.append((node, scope))
        if not found:
            return None
        node, scope = in_order(kv, found)[0]
        operand = self._minor_insert(hit, kv, node, scope)
        assert operand is not None
        dtype = kv.dtype_of(operand, scope)
        shape = kv.shape_of(operand, scope)
        dims = ", ".join(map(str, shape or ()))
        headline = (f"A new minor dimension on a ({dims}) {dtype} vector in a kernel compiled for TPU: Mosaic "
                    "inserts a minor dimension only for 32-bit types; widen to 32 bits first")
        return DtypeDefect(node, scope, f"MosaicError: {MOSAIC_PREFIX}infer-vector-layout: unsupported shape cast",
                           headline)

    @staticmethod
    def _minor_insert(hit: Hit, kv: KernelValues, node: ast.AST, scope) -> ast.AST | None:
        """The value a trailing size-1 dimension is added to (rank >= 2 and known), or None."""
        operand: ast.AST | None = None
        rank: int | None = None
        if isinstance(node, ast.Call) and len(node.args) == 2 and not node.keywords \
                and hit.ev.called_api(hit.ev.value(node, scope)) in _EXPAND:
            operand = node.args[0]
            shape = kv.shape_of(operand, scope)
            axis = hit.ev.const(node.args[1], scope)
            if shape is None or not isinstance(axis, int) or isinstance(axis, bool):
                return None
            if axis not in (-1, len(shape)):
                return None
            rank = len(shape)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Tuple):
            entries = node.slice.elts
            last = entries[-1] if entries else None
            if not (isinstance(last, ast.Constant) and last.value is None):
                return None
            kept = entries[:-1]
            if any(not _full(e) for e in kept):
                return None
            operand = node.value
            shape = kv.shape_of(operand, scope)
            if shape is None:
                return None
            if not any(isinstance(e, ast.Constant) and e.value is Ellipsis for e in kept) and len(kept) != len(shape):
                return None
            rank = len(shape)
        if operand is None or rank is None or rank < 2:
            return None
        return operand


def _full(entry: ast.AST) -> bool:
    """``:`` or ``...``: an index entry that keeps its dimension whole."""
    if isinstance(entry, ast.Constant) and entry.value is Ellipsis:
        return True
    return isinstance(entry, ast.Slice) and entry.lower is None and entry.upper is None and entry.step is None
