"""PAL609: a pallas_call out_shape leaf that is no array type (a shape tuple, a (shape, dtype) pair, a dtype)."""
from __future__ import annotations

import ast

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.launch_signature import invalid_out_shape
from ...analysis.rule_api import Hit, Report
from ...rules.base import PythonRule


class InvalidOutShape(PythonRule):
    """`out_shape=` holds a shape, a `(shape, dtype)` pair or a dtype instead of an array type.

    `pallas_call` flattens `out_shape` as a pytree and makes an array type of each leaf
    (`_convert_out_shape_to_aval`, jax/_src/pallas/core.py): a leaf needs `.shape` and `.dtype`.
    A `(shape, dtype)` tuple or a bare shape flattens into ints, and a dtype is a type, so JAX
    raises `ValueError: Invalid out_shape type: <class 'int'>` when the call is traced, in every
    mode. Describe each output with `jax.ShapeDtypeStruct(shape, dtype)` (or an array like it).
    """

    code = "PAL609"
    name = "invalid-out-shape"
    record = "invalid-out-shape"
    summary = "pallas_call out_shape leaf that is a shape, a (shape, dtype) tuple or a dtype"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    label = "out_shape="
    modes = frozenset(Mode)  # (raised when the call is traced: before any backend is involved)

    def applies(self, hit: Hit) -> bool:
        return True

    def check(self, hit: Hit) -> Report | None:
        bad = invalid_out_shape(hit.ev, hit.launch)
        if bad is None:
            return None
        leaf = ast.unparse(bad.leaf)
        related = [Related(hit.span_of(hit.launch.site.node, hit.launch.site.scope), "the `pallas_call`")]
        if bad.leaf is not bad.node:
            related.insert(0, Related(hit.span_of(bad.leaf, bad.scope), "this leaf is no array type"))
        shown = bad.type_shown or "<class 'int'> (or the dtype's class)"
        error = f"ValueError: Invalid out_shape type: {shown}"
        headline = (f"`out_shape` leaf `{leaf if len(leaf) <= 40 else leaf[:37] + '...'}` is not an array "
                    "type: describe each output with `jax.ShapeDtypeStruct(shape, dtype)`")
        return Report(error, headline, span=hit.span_of(bad.node, bad.scope), key=("out-shape",),
                      related=tuple(related), fixable=False)


__all__ = ["InvalidOutShape"]
