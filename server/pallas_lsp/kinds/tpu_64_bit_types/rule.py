"""PAL703: 64-bit element types in a kernel compiled for TPU (with jax_enable_x64 on)."""
from __future__ import annotations

import ast

from ...analysis.findings import Fix
from ...analysis.kernel_values import KernelValues, Where, bits
from ...analysis.rule_api import Hit
from ...rules.tpu_dtype_rule import SIXTY_FOUR_BIT, DtypeDefect, TpuDtypeRule, in_order, jnp_name, replace

_CASTS = {"jax.lax.convert_element_type"}
_NARROWER = {"float64": "float32", "int64": "int32", "uint64": "uint32"}
_HLO = {"float64": "f64", "int64": "s64", "uint64": "u64", "complex128": "c128"}


def x64_enabled(hit: Hit) -> Where | None:
    """The module's own ``jax.config.update("jax_enable_x64", True)`` at its top level (the
    only way the analysis knows 64-bit types exist when the kernel is traced); None without one."""
    ev = hit.ev
    for cs in ev.index.calls_to({"update"}):
        if cs.scope.kind != "module" or len(cs.node.args) != 2:
            continue
        if ev.called_api(ev.value(cs.node, cs.scope, ev.order_of(cs))) != "jax.config.update":
            continue
        if ev.const(cs.node.args[0], cs.scope) == "jax_enable_x64" and ev.const(cs.node.args[1], cs.scope) is True:
            return cs.node, cs.scope, ev.order_of(cs)
    return None


class Tpu64BitTypes(TpuDtypeRule):
    """A 64-bit dtype in a kernel compiled for TPU, with `jax_enable_x64` on.

    TPUs compute in 32 bits at most. With x64 enabled, a cast to a 64-bit type inside the
    kernel (`x.astype(jnp.float64)`) stops the Pallas TPU lowering: `NotImplementedError:
    64-bit types are not supported` (`_convert_element_type_lowering_rule`); a 64-bit operand or
    output of the launch makes XLA fail while compiling the TPU custom call (`While rewriting
    computation to not contain X64 element types, XLA encountered an HLO for which this
    rewriting is not implemented`). Without x64, 64-bit dtypes are 32-bit ones and nothing
    fails, so the rule needs the module's own `jax.config.update("jax_enable_x64", True)`.
    Interpret mode runs the kernel clean. Compute in float32/int32 inside the kernel.
    """

    code = "PAL703"
    name = "tpu-64-bit-types"
    record = "tpu-64-bit-types"
    summary = "a 64-bit dtype (cast or operand) in a kernel compiled for TPU with jax_enable_x64 on"
    label = "float64"

    def defect(self, hit: Hit, kv: KernelValues) -> DtypeDefect | None:
        switch = x64_enabled(hit)
        if switch is None:
            return None
        return self._cast(hit, kv, switch) or self._operand(hit, kv, switch)

    def _cast(self, hit: Hit, kv: KernelValues, switch: Where) -> DtypeDefect | None:
        """A cast to a 64-bit dtype from a known narrower one (the lowering fails first)."""
        found = []
        for node, scope in kv.nodes():
            target = self._cast_target(hit, kv, node, scope)
            if target in SIXTY_FOUR_BIT:
                assert isinstance(node, ast.Call)
                source = kv.dtype_of(_cast_operand(node), scope)
                if source is not None and source != target and (bits(source) or 0) <= 32:
                    found.append((node, scope))
        if not found:
            return None
        node, scope = in_order(kv, found)[0]
        assert isinstance(node, ast.Call)
        target = self._cast_target(hit, kv, node, scope)
        source = kv.dtype_of(_cast_operand(node), scope)
        assert target is not None and source is not None
        headline = (f"A cast from {source} to {target} in a kernel compiled for TPU, with jax_enable_x64 on: the "
                    "Pallas TPU lowering has no 64-bit types")
        fix = None
        narrower = _NARROWER.get(target)
        dtype_node = _dtype_node(node)
        if narrower is not None and dtype_node is not None:
            jnp, imports = jnp_name(hit)
            fix = Fix(f"Cast to {narrower} instead of {target} (32-bit precision)",
                      (replace(hit, dtype_node, scope, f"{jnp}.{narrower}"), *imports))
        return DtypeDefect(node, scope, "NotImplementedError: 64-bit types are not supported", headline,
                           related=[(switch, "64-bit types exist because x64 is enabled here")], fix=fix)

    def _operand(self, hit: Hit, kv: KernelValues, switch: Where) -> DtypeDefect | None:
        """A 64-bit operand or output of the launch (XLA fails compiling the TPU custom call)."""
        facts = [f for f in kv.refs.values() if f.dtype in SIXTY_FOUR_BIT and f.role in ("prefetch", "in", "out")]
        if not facts:
            return None
        outputs = [f for f in facts if f.role == "out"]
        first = (outputs or facts)[0]
        if first.source is None:
            return None
        node, scope, _ = first.source
        dtype = first.dtype or ""
        shape = ",".join(map(str, first.shape)) if first.shape else "..."
        role = {"out": "output", "in": "input", "prefetch": "scalar-prefetch operand"}[first.role]
        error = ("JaxRuntimeError: UNIMPLEMENTED: While rewriting computation to not contain X64 element types, XLA "
                 f"encountered an HLO for which this rewriting is not implemented: %pallas_call = "
                 f"{_HLO.get(dtype, dtype)}[{shape}] custom-call(...), custom_call_target=\"tpu_custom_call\"")
        article = "An" if dtype[:1] in "aeiou" else "A"
        headline = (f"{article} {dtype} {role} of a kernel compiled for TPU, with jax_enable_x64 on: XLA cannot "
                    "compile a TPU kernel call with 64-bit operands or results")
        return DtypeDefect(node, scope, error, headline,
                           related=[(switch, "64-bit types exist because x64 is enabled here")])

    @staticmethod
    def _cast_target(hit: Hit, kv: KernelValues, node: ast.AST, scope) -> str | None:
        if not isinstance(node, ast.Call):
            return None
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "astype" and len(node.args) == 1:
            return kv.dtype_of(node, scope)
        v = hit.ev.value(node, scope)
        if hit.ev.called_api(v) in _CASTS:
            return kv.dtype_of(node, scope)
        return None


def _cast_operand(node: ast.Call) -> ast.AST:
    return node.func.value if isinstance(node.func, ast.Attribute) and node.func.attr == "astype" else node.args[0]


def _dtype_node(node: ast.Call) -> ast.AST | None:
    if isinstance(node.func, ast.Attribute) and node.func.attr == "astype":
        return node.args[0]
    keyword = next((k.value for k in node.keywords if k.arg == "new_dtype"), None)
    return keyword if keyword is not None else (node.args[1] if len(node.args) > 1 else None)
