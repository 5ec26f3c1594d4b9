"""The shared part of the Mosaic TPU matmul and reduction rules (PAL710-PAL716): a dot, a
reduction or an arg-reduction in a kernel body reached from a launch that Mosaic TPU lowers,
read with ``analysis.tpu_matmul`` in the frames the kernel reached it in."""
from __future__ import annotations

import ast

from ..analysis import tpu_matmul
from ..analysis.contexts import Mode
from ..analysis.kernel_values import kernel_values
from ..analysis.rule_api import Hit
from ..analysis.scopes import MATMUL_KEY
from ..lowering import PINNED_RELEASE
from .base import PythonRule
from .tpu_block_rule import lowered_by_mosaic_tpu

DOT_KEYS = frozenset(tpu_matmul.DOT_CALLS) | {MATMUL_KEY}
REDUCTION_KEYS = frozenset(tpu_matmul.REDUCTIONS)
ARG_REDUCTION_KEYS = frozenset(tpu_matmul.ARG_REDUCTIONS)


def release_key(hit: Hit) -> tuple[int, ...]:
    """The checked jax release as numbers (the pinned one when none is chosen)."""
    version = hit.release.version or PINNED_RELEASE
    return tuple(int(p) for p in version.split(".") if p.isdigit())


class TpuKernelOpRule(PythonRule):
    """A rule on one operation of a kernel body compiled by Mosaic TPU (never in interpret
    mode: the interpreters run these operations on the host, where they are fine)."""

    construct = "call"
    modes = frozenset({Mode.TPU})

    def applies(self, hit: Hit) -> bool:
        return super().applies(hit) and lowered_by_mosaic_tpu(hit)

    def reader(self, hit: Hit) -> tpu_matmul.KernelReader | None:
        kv = kernel_values(hit.ev, hit.launch)
        return tpu_matmul.KernelReader(hit.ev, kv, hit.frames) if kv is not None else None

    def order(self, hit: Hit):
        return hit.ev.order_of(hit.site)

    def dot(self, hit: Hit) -> tpu_matmul.DotFacts | None:
        """The facts of the dot this hit is (a dot call or ``a @ b``)."""
        reader = self.reader(hit)
        if reader is None:
            return None
        node = hit.site.node
        if hit.kind == "operator":
            if not isinstance(node, ast.BinOp):
                return None
            return tpu_matmul.dot_facts(reader, tpu_matmul.MATMUL_OPERATOR, node, hit.site.scope, self.order(hit))
        if hit.api not in tpu_matmul.DOT_CALLS:
            return None
        return tpu_matmul.dot_facts(reader, hit.api, node, hit.site.scope, self.order(hit))

    @staticmethod
    def call_words(hit: Hit) -> str:
        node = hit.site.node
        if isinstance(node, ast.BinOp):
            return f"`{hit.code_of(node)}`"
        return f"`{hit.code_of(node.func)}(...)`"


def cast_edits(hit: Hit, node: ast.expr, dtype: str) -> tuple:
    """Edits that make ``node`` read ``node.astype(jnp.<dtype>)`` (in the module's own words)."""
    from ..analysis.findings import TextEdit
    from ..analysis.fixes import value_in_module

    code = hit.code_of(node)
    if not isinstance(node, (ast.Name, ast.Subscript, ast.Call, ast.Attribute)):
        code = f"({code})"
    text, imports = value_in_module(hit.index, f"{code}.astype({{jax.numpy}}.{dtype})")
    return (TextEdit(hit.span_of(node), text), *imports)
