"""The shared part of the TPU dtype kinds (PAL700-PAL705): element types a compiled Mosaic TPU
kernel cannot compute with, decided from the dtypes the code states (analysis/kernel_values.py).

Each rule walks the code its kernel runs (the kernel, functions defined in it and the module's
functions it calls) once per compiled TPU launch and reports the first construct of its kind,
with the dtypes as the code says them. An unknown dtype, a value whose storage (vector or
scalar) the code does not say, or a launch not compiled for TPU leaves the rule quiet.
"""
from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..analysis import api
from ..analysis.contexts import Mode
from ..analysis.findings import Fix, Related, TextEdit
from ..analysis.fixes import value_in_module
from ..analysis.kernel_values import KernelValues, Where, kernel_values
from ..analysis.rule_api import Hit, Report
from ..analysis.scopes import Scope
from .base import PythonRule

# The text before Mosaic's reason in the error a chip prints for a kernel it cannot compile.
MOSAIC_PREFIX = "INTERNAL: Mosaic failed to compile TPU kernel: "
NARROW_INTS = frozenset({"int8", "uint8"})  # (int16 vector addition compiled on the v5e)
DTYPE_SCALARS = frozenset({"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16",
                           "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2"})
SIXTY_FOUR_BIT = frozenset({"float64", "int64", "uint64", "complex128"})


@dataclass
class DtypeDefect:
    """What a rule found: the construct (``node`` in ``scope``), where to underline (``anchor``;
    the construct by default), the error as the chip or JAX prints it, the words of the finding,
    related places, and a fix when one is mechanical."""

    node: ast.AST
    scope: Scope
    error: str
    headline: str
    anchor: Where | None = None
    related: Sequence[tuple[Where | None, str]] = field(default_factory=list)
    fix: Fix | None = None


class TpuDtypeRule(PythonRule):
    """A construct of a kernel compiled for TPU that Mosaic refuses for its element type."""

    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.TPU})  # (interpret mode computes every dtype on the host)
    launch_apis = frozenset({api.PALLAS_CALL})

    def applies(self, hit: Hit) -> bool:
        # Lowered explicitly for another platform, the Mosaic TPU compiler never sees the kernel.
        return super().applies(hit) and hit.context.lowered_for in (None, "tpu")

    def defect(self, hit: Hit, kv: KernelValues) -> DtypeDefect | None:
        raise NotImplementedError

    def check(self, hit: Hit) -> Report | None:
        kv = kernel_values(hit.ev, hit.launch)
        if kv is None or gpu_kernel(hit, kv):
            return None
        found = self.defect(hit, kv)
        if found is None:
            return None
        index = hit.ev.index
        node, scope = (found.anchor[0], found.anchor[1]) if found.anchor is not None else (found.node, found.scope)
        span = index.span(node, scope)
        related = [Related(index.span(where[0], where[1]), words) for where, words in found.related
                   if where is not None and index.span(where[0], where[1]).line != span.line]
        if found.anchor is not None and index.span(found.node, found.scope).line != span.line:
            related.insert(0, Related(index.span(found.node, found.scope), "the operation in the kernel"))
        return Report(found.error, found.headline, span=span, key=id(node), related=tuple(related),
                      fixable=found.fix is not None)

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        # (built on request: the same walk again, the rule keeps nothing between analyses)
        kv = kernel_values(hit.ev, hit.launch)
        found = self.defect(hit, kv) if kv is not None else None
        return [found.fix] if found is not None and found.fix is not None else []


_GPU_MODULES = (api.PLGPU + ".", api.PLTRITON + ".")


def gpu_kernel(hit: Hit, kv: KernelValues) -> bool:
    """The kernel calls a GPU-only Pallas API (``plgpu.*``, ``pl.triton``): it is written for a
    GPU, whatever backend the launch's context says (a ``backends`` setting of tpu included)."""
    ev = hit.ev
    for scope in kv.scopes():
        for cs in scope.calls:
            name = ev.called_api(ev.value(cs.node, cs.scope, ev.order_of(cs)))
            if name is not None and name.startswith(_GPU_MODULES):
                return True
            root = cs.node.func
            while isinstance(root, ast.Attribute):
                root = root.value
            # (a module imported under ``try:``, ``None`` in its ``except``: any import counts)
            if isinstance(root, ast.Name) and any(
                    b.kind == "import" and (b.qualified + ".").startswith(_GPU_MODULES)
                    for b in ev.index.scope.bindings.get(root.id, ())):
                return True
    return False


def code(hit: Hit, node: ast.AST, scope: Scope) -> str:
    return hit.ev.index.code_of(node, scope)


def jnp_name(hit: Hit) -> tuple[str, tuple[TextEdit, ...]]:
    """How this module names ``jax.numpy``, and the import edit when it does not import it."""
    return value_in_module(hit.ev.index, "{jax.numpy}")


def cast_text(hit: Hit, node: ast.AST, scope: Scope, jnp: str, dtype: str) -> str:
    """``<node>.astype(jnp.<dtype>)`` (parenthesised where the expression needs it)."""
    text = code(hit, node, scope)
    if not isinstance(node, (ast.Name, ast.Subscript, ast.Call, ast.Attribute)):
        text = f"({text})"
    return f"{text}.astype({jnp}.{dtype})"


def widened_text(hit: Hit, node: ast.AST, scope: Scope, jnp: str, dtype: str) -> str:
    """An operand in ``dtype``: a Python number as it is, a jnp scalar (``jnp.int8(2)``) made
    in ``dtype`` (``jnp.int32(2)``), anything else cast (``x.astype(jnp.int32)``)."""
    c = hit.ev.const(node, scope)
    if isinstance(c, (int, float)) and not isinstance(c, bool):
        return code(hit, node, scope)
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        name = hit.ev.called_api(hit.ev.value(node, scope))
        number = hit.ev.const(node.args[0], scope)
        if name is not None and name.startswith("jax.numpy.") and name.rsplit(".", 1)[1] in DTYPE_SCALARS \
                and isinstance(number, (int, float)) and not isinstance(number, bool):
            return f"{jnp}.{dtype}({code(hit, node.args[0], scope)})"
    return cast_text(hit, node, scope, jnp, dtype)


def replace(hit: Hit, node: ast.AST, scope: Scope, text: str) -> TextEdit:
    return TextEdit(hit.ev.index.span(node, scope), text)


def ref_words(kv: KernelValues, ref: str) -> str:
    """``x_ref (input 0, int8)`` as the finding names a kernel Ref."""
    fact = kv.ref(ref)
    if fact is None:
        return ref
    role = {"in": "input", "out": "output", "scratch": "scratch", "prefetch": "scalar-prefetch operand"}[fact.role]
    return f"`{ref}` ({role} {fact.position}, {fact.dtype})"




def in_order(kv: KernelValues, found: Sequence[tuple[ast.AST, Scope]]) -> list[tuple[ast.AST, Scope]]:
    """Constructs in the order the kernel traces them: the kernel first, then what it calls;
    within one function, by position."""
    rank = {id(s): i for i, s in enumerate(kv.scopes())}
    return sorted(found, key=lambda f: (rank.get(id(f[1]), 0), getattr(f[0], "lineno", 0),
                                        getattr(f[0], "col_offset", 0)))


ARITH_NAMES = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
               ast.Mod: "rem"}


__all__ = ["ARITH_NAMES", "DtypeDefect", "MOSAIC_PREFIX", "NARROW_INTS", "SIXTY_FOUR_BIT", "TpuDtypeRule", "cast_text",
           "code", "in_order", "jnp_name", "widened_text", "ref_words", "replace"]
