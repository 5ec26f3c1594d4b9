"""Fixes that route a TMA store through one more SMEM scratch buffer.

The GPU interpreter cannot store to a transposed GMEM view, nor reduce into GMEM
(``copy_smem_to_gmem(..., reduction_op=...)``). What runs clean (jax 0.12, KINDS.md) is to do
that work in SMEM first: transpose into a second buffer, or read the destination into a buffer
and reduce there, then store plainly. The new buffer needs the shape and dtype of the source
buffer, which only its entry in the launch's scratch list says, so these are Python: each is a
data fix op (``transposeIntoScratch``, ``reduceInScratch``) a record's detection names with the
new buffers' names.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from ..analysis import api
from ..analysis.evaluate import CallVal, TupleVal
from ..analysis.findings import Fix, TextEdit
from ..analysis.fixes import call_text, new_scratch_edits, statement_indent, value_in_module
from ..analysis.launches import kernel_operand_params
from ..analysis.rule_api import Hit

SMEM = "jax.experimental.pallas.mosaic_gpu.SMEM"
PLGPU = "{jax.experimental.pallas.mosaic_gpu}"
# TMA reduction ops and the SMEM code that does the same (jax's TMAReductionOp; "inc"/"dec"
# wrap around a bound and have no one-line equivalent).
REDUCTIONS = {"add": "{acc}[...] + {src}[...]", "max": "{jax.numpy}.maximum({acc}[...], {src}[...])",
              "min": "{jax.numpy}.minimum({acc}[...], {src}[...])", "and": "{acc}[...] & {src}[...]",
              "or": "{acc}[...] | {src}[...]", "xor": "{acc}[...] ^ {src}[...]"}


@dataclass(frozen=True)
class ScratchBuffer:
    """A kernel scratch parameter whose entry in the launch's scratch list is written there as
    ``plgpu.SMEM(shape, dtype, ...)``."""

    name: str
    entry: ast.Call
    shape: tuple[str, ...]  # the code of each dimension
    dtype: str


def smem_scratch_of(hit: Hit, node: ast.AST | None) -> ScratchBuffer | None:
    """The SMEM scratch buffer the argument names, when the kernel's parameter and its entry in
    a literal scratch list tell its shape (a literal tuple) and dtype."""
    launch, ev = hit.launch, hit.ev
    if not isinstance(node, ast.Name) or hit.reached is None or hit.reached.scope is not launch.kernel:
        return None
    params = kernel_operand_params(launch)
    opt = launch.options.get(launch.api.scratch_keyword)
    if params is None or node.id not in params or opt is None or not isinstance(opt[0], (ast.List, ast.Tuple)):
        return None
    entries = opt[0].elts
    at = params.index(node.id) - (len(params) - len(entries))
    if at < 0 or at >= len(entries) or not isinstance(entries[at], ast.Call):
        return None
    entry = entries[at]
    v = ev.value(entry, opt[1], opt[2])
    called = ev.called_api(v) if isinstance(v, CallVal) else None
    if called is None or api.canonical(called) != SMEM or len(entry.args) < 2 \
            or any(isinstance(a, ast.Starred) for a in entry.args):
        return None
    shape = entry.args[0]
    if not isinstance(shape, ast.Tuple) or not shape.elts or any(isinstance(e, ast.Starred) for e in shape.elts):
        return None
    code = ev.index.code_of
    return ScratchBuffer(node.id, entry, tuple(code(e, opt[1]) for e in shape.elts), code(entry.args[1], opt[1]))


def _untransposed(hit: Hit, node: ast.AST | None) -> ast.AST | None:
    """``ref`` for a 2-D transposed view of it: ``ref.T``, ``ref.transpose((1, 0))`` or
    ``ref.transpose(1, 0)``, written there or bound to a name in the same function."""
    ev, scope = hit.ev, hit.site.scope
    for _ in range(4):
        if isinstance(node, ast.Name):
            b = ev.lookup(node.id, scope, ev.order_of(hit.site))
            if b is None or b.kind != "assign" or b.node is None or b.scope is not scope:
                return None
            node = b.node
            continue
        if isinstance(node, ast.Attribute) and node.attr == "T":
            return node.value
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "transpose" \
                and not node.keywords:
            if len(node.args) == 1:
                v = ev.value(node.args[0], scope)
                perm = [ev.const(n, s, o) for n, s, o in v.items] if isinstance(v, TupleVal) else None
            else:
                perm = [ev.const(a, scope) for a in node.args]
            if perm == [1, 0]:
                return node.func.value
        return None
    return None


def _statements(hit: Hit, lines: list[str]) -> str | None:
    """The statements, to replace the store call, when it is a statement on its own line."""
    indent = statement_indent(hit.site)
    return None if indent is None else ("\n" + indent).join(lines)


def fresh_kernel_name(hit: Hit, wanted: str) -> str:
    """``wanted``, or ``wanted_2``, ``wanted_3``...: a name the kernel neither binds nor takes."""
    taken = set(hit.launch.kernel.bindings) | {p[0] for p in hit.launch.kernel.params}
    name, n = wanted, 2
    while name in taken:
        name, n = f"{wanted}_{n}", n + 1
    return name


def transpose_into_scratch(hit: Hit, title: str, name: str, safe: bool) -> Fix | None:
    """``copy_smem_to_gmem(smem, ref.T)`` -> ``smem_t[...] = smem[...].T``, ``commit_smem()``,
    ``copy_smem_to_gmem(smem_t, ref)``, with ``smem_t`` a new SMEM scratch buffer of the
    transposed shape."""
    ev, index = hit.ev, hit.index
    src = smem_scratch_of(hit, ev.posarg(hit.site, 0))
    dst = ev.posarg(hit.site, 1)
    base = _untransposed(hit, dst)
    if src is None or base is None or len(src.shape) != 2 or hit.site.has_star:
        return None
    new = fresh_kernel_name(hit, name.format(src=src.name))
    plgpu, imports = value_in_module(index, PLGPU)
    smem_code = index.code_of(src.entry.func, hit.launch.options[hit.launch.api.scratch_keyword][1])
    what = f"{smem_code}(({src.shape[1]}, {src.shape[0]}), {src.dtype})"
    store = call_text(index, hit.site, first=[new, hit.code_of(base)], drop=[ev.posarg(hit.site, 0), dst])
    text = _statements(hit, [f"{new}[...] = {src.name}[...].T", f"{plgpu}.commit_smem()", store])
    if text is None:
        return None
    got = new_scratch_edits(hit, [(what, new)], also=(TextEdit(hit.span, text),))
    return None if got is None else Fix(title, got[1] + imports, preferred=safe, safe=safe)


def reduce_in_scratch(hit: Hit, title: str, name: str, barrier: str, safe: bool) -> Fix | None:
    """``copy_smem_to_gmem(src, dst, reduction_op=op)`` -> ``dst`` read into a new SMEM buffer
    like ``src`` (with a new barrier), reduced with ``src`` there, and stored plainly."""
    ev, index = hit.ev, hit.index
    call = hit.site.node
    src = smem_scratch_of(hit, ev.posarg(hit.site, 0))
    dst = ev.posarg(hit.site, 1)
    op_node = ev.kwarg(hit.site, "reduction_op")
    op = ev.const(op_node, hit.site.scope, ev.order_of(hit.site)) if op_node is not None else None
    if src is None or dst is None or not isinstance(op, str) or op not in REDUCTIONS or hit.site.has_star \
            or len(call.args) > 2 or ev.kwarg(hit.site, "predicate") is not None:
        return None
    acc, bar = fresh_kernel_name(hit, name.format(src=src.name)), fresh_kernel_name(hit, barrier.format(src=src.name))
    if acc == bar:
        return None
    scope = hit.launch.options[hit.launch.api.scratch_keyword][1]
    what = index.code_of(src.entry, scope)
    reduced, imports = value_in_module(index, REDUCTIONS[op].replace("{acc}", acc).replace("{src}", src.name))
    plgpu, more = value_in_module(index, PLGPU)
    dst_code = hit.code_of(dst)
    store = call_text(index, hit.site, first=[acc, dst_code], drop=[ev.posarg(hit.site, 0), dst, op_node])
    text = _statements(hit, [f"{plgpu}.copy_gmem_to_smem({dst_code}, {acc}, {bar})", f"{plgpu}.barrier_wait({bar})",
                             f"{acc}[...] = {reduced}", f"{plgpu}.commit_smem()", store])
    if text is None:
        return None
    got = new_scratch_edits(hit, [(what, acc), (f"{plgpu}.Barrier()", bar)], also=(TextEdit(hit.span, text),))
    if got is None:
        return None
    return Fix(title, got[1] + imports + tuple(e for e in more if e not in imports), preferred=safe, safe=safe)
