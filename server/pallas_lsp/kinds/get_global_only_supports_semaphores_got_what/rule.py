"""PAL002: ``pl.get_global`` of anything but a GMEM semaphore in a compiled Mosaic GPU kernel."""
from __future__ import annotations

import ast
from dataclasses import replace

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.evaluate import CallVal, Const, Ext, TupleVal
from ...analysis.findings import Fix, TextEdit
from ...analysis.fixes import ensure_import, move_to_scratch_fix
from ...rules.base import ApiInContextRule

# Scratch types a compiled Mosaic GPU kernel allocates (each checked by lowering for CUDA under
# jax 0.12): get_global of one of these moves to the launch's scratch list as it is.
_SCRATCH_AS_IS = {f"{api.PLGPU}.SMEM", f"{api.PLGPU}.TMEM", f"{api.PLGPU}.Barrier", f"{api.PLGPU}.ClusterBarrier"}
# Arrays Mosaic GPU cannot allocate as scratch (GMEM: "Unsupported memory space: gmem"; the TPU
# memory spaces likewise): the buffer that lowers is the same shape in shared memory.
_SCRATCH_AS_SMEM = {f"{api.PLGPU}.GMEM", f"{api.PLTPU}.VMEM", f"{api.PLTPU}.SMEM"}
# What Mosaic GPU checks the kernel's shared memory against when lowering without a device
# (jax/experimental/mosaic/gpu/core.py: 227 KiB): a bigger buffer fails there too.
_MAX_SMEM_BYTES = 227 * 1024
_ITEM_BYTES = {"float64": 8, "int64": 8, "uint64": 8, "complex64": 8, "float32": 4, "int32": 4, "uint32": 4,
               "float16": 2, "bfloat16": 2, "int16": 2, "uint16": 2, "int8": 1, "uint8": 1, "bool_": 1,
               "float8_e4m3fn": 1, "float8_e5m2": 1, "float8_e4m3b11fnuz": 1, "float8_e8m0fnu": 1}
# TPU semaphore types with a GPU counterpart get_global accepts.
_GPU_SEMAPHORE_FOR = {f"{api.PLTPU}.SemaphoreType.REGULAR": "SemaphoreType.REGULAR"}


def what_is_requested(hit) -> tuple[str, str] | None:
    """(public name, description) of a get_global argument that is not a GMEM semaphore,
    or None when it is one or cannot be told."""
    ev = hit.ev
    arg = ev.posarg(hit.call, 0)
    if arg is None:
        arg = ev.kwarg(hit.call, "what")
    if arg is None:
        return None
    v = ev.value(arg, hit.call.scope, ev.order_of(hit.call))
    name = ev.ext_name(v) if isinstance(v, Ext) else ev.called_api(v) if isinstance(v, CallVal) else None
    if name is None or name in api.GPU_SEMAPHORE_TYPES:
        return None
    desc = api.NOT_GPU_SEMAPHORE_TYPES.get(name)
    return (name, desc) if desc else None


def _what_node(hit) -> ast.expr | None:
    node = hit.ev.posarg(hit.call, 0)
    return node if node is not None else hit.ev.kwarg(hit.call, "what")


def _smem_bytes(hit, node: ast.expr, name: str) -> int:
    """The bytes of an array type ``X(shape, dtype)`` that would live in shared memory (0 when
    not an array, or when its shape or dtype are not known here)."""
    if name in (f"{api.PLGPU}.Barrier", f"{api.PLGPU}.ClusterBarrier", f"{api.PLGPU}.TMEM") \
            or not isinstance(node, ast.Call):
        return 0
    ev, scope = hit.ev, hit.call.scope
    order = ev.order_of(hit.call)
    shape_node = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "shape"), None)
    dtype_node = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "dtype"),
                                                              None)
    if shape_node is None or dtype_node is None:
        return 0
    shape = ev.value(shape_node, scope, order)
    items = shape.items if isinstance(shape, TupleVal) else [(shape_node, scope, order)]
    dims = [_int_of(ev, n, s, o) for n, s, o in items]
    if any(d is None for d in dims):
        return 0
    dtype = ev.ext_name(ev.value(dtype_node, scope, order)) or ""
    size = _ITEM_BYTES.get(dtype.rsplit(".", 1)[-1], 0)
    for d in dims:
        size *= d  # type: ignore[operator]
    return size


_INT_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
            ast.FloorDiv: lambda a, b: a // b if b else None, ast.LShift: lambda a, b: a << b if 0 <= b < 64 else None,
            ast.Pow: lambda a, b: a ** b if 0 <= b < 64 else None}


def _int_of(ev, node, scope, order, depth: int = 0) -> int | None:
    """An integer a shape entry is known to be: literals, names bound to them, and arithmetic
    on those (``1 << 18``, ``N * 2``); None when not known."""
    if depth > 8:
        return None
    if isinstance(node, ast.BinOp) and type(node.op) in _INT_OPS:
        a = _int_of(ev, node.left, scope, order, depth + 1)
        b = _int_of(ev, node.right, scope, order, depth + 1)
        return _INT_OPS[type(node.op)](a, b) if a is not None and b is not None else None
    if isinstance(node, ast.Name):
        b = ev.lookup(node.id, scope, order)
        if b is not None and b.kind == "assign" and b.node is not None and b.scope is not None:
            return _int_of(ev, b.node, b.scope, ev.order_of(b), depth + 1)
    v = ev.value(node, scope, order)
    if isinstance(v, Const) and isinstance(v.value, int) and not isinstance(v.value, bool):
        return v.value
    return None


def _gpu_semaphore_fix(hit, gpu_type: str) -> Fix | None:
    """``pltpu.SemaphoreType.REGULAR`` (or ``...REGULAR(shape)``) written at the get_global call
    becomes ``plgpu.SemaphoreType.REGULAR``."""
    node = _what_node(hit)
    if isinstance(node, ast.Call):
        node = node.func
    if not isinstance(node, ast.Attribute):
        return None  # an alias defined elsewhere: leave it to the author
    index = hit.ev.index
    gpu, imp = ensure_import(index, api.PLGPU)
    edits = (TextEdit(index.span(node, hit.call.scope), f"{gpu}.{gpu_type}"),) + ((imp,) if imp is not None else ())
    return Fix(f"Use the GPU semaphore type ({gpu}.{gpu_type})", edits, preferred=True, safe=True)


class GetGlobalOfNonSemaphore(ApiInContextRule):
    """`pl.get_global` only supports GMEM semaphores in a compiled Mosaic GPU kernel.

    Mosaic GPU's resource estimator and lowering rule for `get_global` accept only
    `plgpu.SemaphoreType.REGULAR` (a semaphore in GPU global memory, optionally
    shaped). SMEM or GMEM arrays, `plgpu.Barrier`, barrier semaphores and TPU
    semaphore types raise `NotImplementedError: get_global only supports
    semaphores, got ...` while the kernel is lowered — even when the result is
    unused, since the estimator walks every equation. Lowering for CUDA on a
    CPU-only machine (`jax.jit(f).trace(...).lower(lowering_platforms=("cuda",))`)
    reproduces it. In an interpret mode, rule PAL001 applies instead.

    Quick fixes offer only what Mosaic GPU lowers: `plgpu.SemaphoreType.REGULAR`
    for a TPU regular semaphore; kernel scratch for SMEM, TMEM and barriers; and
    for a GMEM or TPU array an SMEM scratch buffer of its shape (Mosaic GPU has no
    GMEM scratch: `Unsupported memory space: gmem`), when it fits in shared memory.
    """

    code = "PAL002"
    name = "get-global-non-semaphore"
    record = "get-global-only-supports-semaphores-got-what"
    summary = "pl.get_global of a non-semaphore in a compiled Mosaic GPU kernel"
    apis = frozenset({api.GET_GLOBAL})
    label = "pl.get_global"
    modes = frozenset({Mode.MOSAIC_GPU})

    def actual_error(self, hit) -> str | None:
        what = what_is_requested(hit)
        if what is None:
            return None
        if hit.launch.api.name == api.PALLAS_CALL and hit.result_unused():
            return None  # pallas_call may drop dead code first: not measured, stay quiet
        ref = what[1][what[1].find("(") + 1:-1] if "(" in what[1] else "..."
        return f"NotImplementedError: get_global only supports semaphores, got {ref}"

    def headline(self, hit) -> str:
        what = what_is_requested(hit)
        desc = what[1].split(" (")[0] if what else "this value"
        return f"`pl.get_global` only supports GMEM semaphores in a compiled Mosaic GPU kernel, not {desc}"

    def offer_fixes(self, hit) -> list:
        """Only fixes that leave a kernel Mosaic GPU lowers: the GPU semaphore for a TPU one,
        scratch of a type Mosaic GPU allocates (a GMEM or TPU array becomes an SMEM buffer of
        its shape, when that fits in shared memory). Barrier semaphores, TPU DMA semaphores and
        TPU arrays of any memory space have no such replacement: nothing is offered."""
        what = what_is_requested(hit)
        if what is None:
            return []
        name = what[0]
        if name in _GPU_SEMAPHORE_FOR:
            fix = _gpu_semaphore_fix(hit, _GPU_SEMAPHORE_FOR[name])
            return [fix] if fix is not None else []
        node = _what_node(hit)
        if node is None or _smem_bytes(hit, node, name) > _MAX_SMEM_BYTES:
            return []
        if name in _SCRATCH_AS_IS:
            # (Unsafe: scratch lives for one kernel invocation, a global persists across them.)
            fix = move_to_scratch_fix(hit, "Allocate it as kernel scratch ({key}=[{what}]); note that scratch lives "
                                           "for one kernel invocation, a global persists across invocations",
                                      safe=False)
            return [fix] if fix is not None else []
        if name in _SCRATCH_AS_SMEM and isinstance(node, ast.Call):
            index = hit.ev.index
            gpu, imp = ensure_import(index, api.PLGPU)
            code = index.code_of(node, hit.call.scope)
            smem = f"{gpu}.SMEM" + code[len(index.code_of(node.func, hit.call.scope)):]
            cannot = "a GMEM array" if name == f"{api.PLGPU}.GMEM" else "TPU memory"
            fix = move_to_scratch_fix(
                hit, "Allocate it in shared memory as kernel scratch instead ({key}=[{what}]): Mosaic GPU cannot "
                     f"allocate {cannot}; SMEM is private to each block and lives for one kernel invocation",
                what=smem, safe=False)
            if fix is None:
                return []
            # Not preferred: the buffer is no longer shared across blocks and invocations.
            return [replace(fix, edits=fix.edits + ((imp,) if imp is not None else ()), preferred=False)]
        return []
