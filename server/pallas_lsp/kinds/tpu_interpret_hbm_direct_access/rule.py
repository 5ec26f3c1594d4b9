"""PAL515: ``ref[...]`` on a Ref in HBM (or ``pl.ANY``) in TPU interpret mode."""
from __future__ import annotations

import ast
from dataclasses import dataclass

from ...analysis import api, shapes
from ...analysis.contexts import Mode
from ...analysis.evaluate import CallVal, Const, Ext, FuncVal, TupleVal, Value
from ...analysis.findings import Fix, TextEdit
from ...analysis.fixes import ensure_import
from ...analysis.launches import applied_at, kernel_operand_params, scratch_count
from ...analysis.rule_api import Hit, Report
from ...analysis.scopes import CallSite, Scope, own_nodes
from ...rules.base import PythonRule

# Memory spaces the TPU interpreter refuses direct loads and stores in.
HBM_SPACES = {f"{api.PL}.ANY", f"{api.PLTPU}.ANY", f"{api.PLTPU}.HBM", f"{api.PLTPU}.MemorySpace.HBM",
              f"{api.PLTPU}.MemorySpace.ANY", f"{api.PL}.MemorySpace.ANY"}
BLOCK_SPEC = f"{api.PL}.BlockSpec"
STRUCT = "jax.ShapeDtypeStruct"
GRID_SPECS = {f"{api.PL}.GridSpec", f"{api.PLTPU}.PrefetchScalarGridSpec"}
TPU_MESHES = {f"{api.PLTPU}.create_tensorcore_mesh", f"{api.PLTPU}.TensorCoreMesh"}
MESSAGE = ("ValueError: {prim}: Buffers with a memory space of HBM or ANY cannot be referenced directly. "
           "Instead, use `pltpu.sync_copy` or `pltpu.async_copy`.")
_MAX_DEPTH = 3


@dataclass(frozen=True)
class Access:
    node: ast.Subscript
    scope: Scope
    store: bool
    param: str  # the name the Ref has where it is accessed
    operand: str  # the kernel parameter it is


class HbmDirectAccessInTpuInterpret(PythonRule):
    """A Ref in HBM or `pl.ANY` read or written with `ref[...]` in TPU interpret mode.

    Operands a `pl.pallas_call` places in HBM or `pl.ANY` (`pl.BlockSpec(memory_space=pl.ANY)`),
    and every operand of a `pl.kernel` on a TPU core mesh, stay in HBM: the kernel must copy
    them with `pltpu.sync_copy` / `pltpu.async_copy` into VMEM first. The TPU interpreter
    checks it (`_get_memory_space_and_raise_if_hbm`) and raises for a direct load (`get_p`)
    or store (`swap_p`). `interpret=True` does not model HBM and runs such a kernel, hiding
    the bug.
    """

    code = "PAL515"
    name = "tpu-interpret-hbm-direct-access"
    record = "tpu-interpret-hbm-direct-access"
    summary = "ref[...] on a Ref in HBM or pl.ANY in TPU interpret mode"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL, f"{api.PL}.kernel"})
    label = "ref[...]"
    modes = frozenset({Mode.TPU_INTERPRET})

    def check(self, hit: Hit) -> Report | None:
        kernel = hit.launch.kernel
        if kernel is None or len(hit.launch.kernels) != 1:
            return None
        names = _hbm_params(hit)
        if not names:
            return None
        for access in _accesses(hit, kernel, {n: n for n in names}, 0, set()):
            prim = "swap_p" if access.store else "get_p"
            what = "written" if access.store else "read"
            return Report(MESSAGE.format(prim=prim),
                          f"`{access.param}` is in HBM: it is {what} directly, which the TPU interpreter refuses "
                          f"(copy it with `pltpu.sync_copy`)",
                          span=hit.span_of(access.node, access.scope), key=id(access.node),
                          fixable=names[access.operand] is not None)
        return None

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        """The BlockSpec that put the operand in HBM asks for VMEM instead: Pallas then copies
        the block in and out, and ``ref[...]`` reads it (the kernel's own copies of it still run).
        Not safe: on a TPU the whole block must then fit in VMEM, which is why HBM is used."""
        kernel = hit.launch.kernel
        names = _hbm_params(hit) if kernel is not None else {}
        index = hit.ev.index
        for access in _accesses(hit, kernel, {n: n for n in names}, 0, set()) if kernel is not None else ():
            where = names[access.operand]
            if where is None or index.path_of(where[1]) != index.path:
                return []
            tpu, imp = ensure_import(index, api.PLTPU)
            edits = (TextEdit(index.span(where[0], where[1]), f"{tpu}.VMEM"),) + ((imp,) if imp else ())
            return [Fix(f"Let Pallas copy `{access.operand}` into VMEM (memory_space={tpu}.VMEM; "
                        f"the whole block must fit in VMEM)", edits, preferred=False, safe=False)]
        return []


def _hbm_params(hit: Hit) -> dict[str, tuple[ast.expr, Scope] | None]:
    """The kernel's parameters that are Refs in HBM or ANY (empty when it cannot be told), each
    with the ``memory_space=`` value of the BlockSpec that put it there (None for a
    ``pl.kernel`` operand or a spec that is a memory space itself)."""
    ev = hit.ev
    names = kernel_operand_params(hit.launch)
    if names is None:
        return {}  # (positional partial arguments: the mapping is not followed)
    options = hit.launch.options
    if hit.launch.api.name == f"{api.PL}.kernel":
        mesh = options.get("mesh")
        if mesh is None or _called(ev, ev.value(*mesh)) not in TPU_MESHES:
            return {}
        n_scratch = scratch_count(ev, hit.launch)
        if n_scratch is None:
            return {}
        return _kernel_operands_in_hbm(hit, names[:len(names) - n_scratch])
    # pl.pallas_call: [scalar prefetch] inputs outputs [scratch], by position.
    in_specs, out_specs, n_prefetch = options.get("in_specs"), options.get("out_specs"), 0
    grid_spec = options.get("grid_spec")
    if grid_spec is not None:
        gv = ev.value(*grid_spec)
        if not (isinstance(gv, CallVal) and ev.called_api(gv) in GRID_SPECS):
            return {}
        in_specs = _arg(ev, gv, "in_specs")
        out_specs = _arg(ev, gv, "out_specs")
        prefetch = _arg(ev, gv, "num_scalar_prefetch", 0)
        if prefetch is not None:
            c = ev.value(*prefetch)
            if not (isinstance(c, Const) and isinstance(c.value, int)):
                return {}
            n_prefetch = c.value
    out: dict[str, tuple[ast.expr, Scope] | None] = {}
    ins = _specs(ev, in_specs)
    for i, spec in enumerate(ins or ()):
        if _in_hbm(ev, spec) and n_prefetch + i < len(names):
            out[names[n_prefetch + i]] = _memory_space_written(ev, spec)
    outs = _specs(ev, out_specs) or []
    if ins is not None:
        first_out = n_prefetch + len(ins)
    else:  # (inputs not given: the outputs are the parameters before the scratch)
        scratch = options.get("scratch_shapes")
        if grid_spec is not None:
            scratch = _arg(ev, ev.value(*grid_spec), "scratch_shapes")
        n_scratch = len(_specs(ev, scratch) or ()) if scratch is not None else 0
        if scratch is not None and not isinstance(ev.value(*scratch), TupleVal):
            return out
        first_out = len(names) - n_scratch - len(outs)
        if first_out < n_prefetch:
            return out
    for j, spec in enumerate(outs):
        k = first_out + j
        if _in_hbm(ev, spec) and k < len(names):
            out[names[k]] = _memory_space_written(ev, spec)
    return out


def _kernel_operands_in_hbm(hit: Hit, names: list[str]) -> dict[str, None]:
    """The parameters of a ``pl.kernel`` on a TPU mesh that are surely in HBM: outputs made from
    ``jax.ShapeDtypeStruct``s (a ``pltpu.VMEM(...)`` output type is in VMEM), and inputs that are
    arrays at every application (a Ref passed in keeps its own memory space:
    ``jax.new_ref(x, memory_space=pltpu.VMEM)``); what the analysis cannot tell is left out."""
    ev = hit.ev
    opt = hit.launch.options.get("out_shape") or hit.launch.options.get("out_type")
    outs: list = []
    if opt is not None:
        v = ev.value(*opt)
        outs = [ev.value(n, s, o) for n, s, o in v.items] if isinstance(v, TupleVal) else [v]
    n_in = len(names) - len(outs)
    if n_in < 0:
        return {}
    out: dict[str, None] = {}
    for name, spec in zip(names[n_in:], outs):
        if isinstance(spec, CallVal) and ev.called_api(spec) == STRUCT:
            out[name] = None
    if n_in:
        apps = applied_at(ev, hit.launch)
        arrays = [all(_surely_array_operand(ev, cs, i) for cs in apps) for i in range(n_in)] if apps else []
        for name, is_array in zip(names[:n_in], arrays):
            if is_array:
                out[name] = None
    return out


def _surely_array_operand(ev, cs: CallSite, i: int) -> bool:
    """Whether the i-th operand at this application is surely an array (its shape is known:
    ``jnp.ones((8, 128))``, a parameter every caller passes one), not a Ref."""
    if cs.has_star or i >= len(cs.node.args):
        return False
    return shapes.array_shape(ev, cs.node.args[i], cs.scope, ev.order_of(cs)) is not None


def _arg(ev, call: CallVal, keyword: str, position: int | None = None):
    node = ev.kwarg(call.site, keyword)
    if node is None and position is not None:
        node = ev.posarg(call.site, position)
    return (node, call.site.scope, call.order) if node is not None else None


def _specs(ev, opt) -> list[Value] | None:
    """The BlockSpecs of an in_specs/out_specs argument: a literal list, or one spec."""
    if opt is None:
        return None
    v = ev.value(*opt)
    if isinstance(v, TupleVal):
        return [ev.value(n, s, o) for n, s, o in v.items]
    return [v]


def _in_hbm(ev, spec: Value) -> bool:
    if isinstance(spec, Ext):
        return spec.name in HBM_SPACES
    if isinstance(spec, CallVal) and ev.called_api(spec) == BLOCK_SPEC:
        node = ev.kwarg(spec.site, "memory_space")
        if node is None:
            return False
        v = ev.value(node, spec.site.scope, spec.order)
        return isinstance(v, Ext) and v.name in HBM_SPACES
    return False


def _memory_space_written(ev, spec: Value) -> tuple[ast.expr, Scope] | None:
    """The ``memory_space=`` argument of a ``pl.BlockSpec(...)`` call (what a fix edits)."""
    if isinstance(spec, CallVal):
        node = ev.kwarg(spec.site, "memory_space")
        if node is not None:
            return node, spec.site.scope
    return None


def _called(ev, v: Value) -> str | None:
    return ev.called_api(v) if isinstance(v, CallVal) else None


def _accesses(hit: Hit, fn: Scope, names: dict[str, str], depth: int, seen: set[int]) -> list[Access]:
    """``name[...]`` loads and stores of the Refs in ``fn``'s own body, in the order of the
    text, and in the local helpers it passes them to (by position). ``names`` maps each name to
    the kernel parameter it stands for."""
    if id(fn) in seen or depth > _MAX_DEPTH or fn.node is None:
        return []
    seen.add(id(fn))
    ev = hit.ev
    out: list[Access] = []
    for node in own_nodes(fn.node):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in names:
            out.append(Access(node, fn, isinstance(node.ctx, ast.Store), node.value.id, names[node.value.id]))
    for cs in fn.calls:
        passed = [(i, a.id) for i, a in enumerate(cs.node.args) if isinstance(a, ast.Name) and a.id in names]
        if not passed:
            continue
        callee = ev.value(cs.node.func, cs.scope, ev.order_of(cs))
        if not isinstance(callee, FuncVal):
            continue
        target = callee.scope
        tparams = [p[0] for p in target.params if p[2] in ("posonly", "normal")]
        inner = {tparams[i]: names[name] for i, name in passed if i < len(tparams)}
        found = _accesses(hit, target, inner, depth + 1, seen) if inner else []
        out.extend(found)
    out.sort(key=lambda a: (hit.span_of(a.node, a.scope).line, hit.span_of(a.node, a.scope).col))
    return out


__all__ = ["HbmDirectAccessInTpuInterpret"]
