"""The Ref accesses of a kernel body as the Mosaic TPU lowering reads them.

Every read ``x_ref[idx]``, write ``o_ref[idx] = v`` (also ``+=``), ``pltpu.load/store(ref, ...,
mask=)`` and DMA operand (``pltpu.make_async_copy(src, dst, sem)``) in a function a launch's kernel
reaches is one :class:`RefAccess`: which kernel Ref it is (a kernel parameter, also through a
helper's parameter or a name bound to ``x_ref.at[...]``), what the code says of that Ref (role,
dtype, memory space, shape: ``kernel_values``), the ``.at[...]`` views taken on the way, and the
index the lowering reads.

JAX folds ``view[...]`` into the view (``state.primitives.get_ref_and_transforms``): a read of a
whole view has the view's index as its indexer and no view before it, so ``x_ref.at[idx][...]``
is ``x_ref[idx]``; any other index leaves the views as transforms that ``_transform_ref`` slices
first. Each index entry is kept as the code writes it (``...``, a Python slice, ``pl.ds(start,
size, stride)``, or a value: a scalar or an index array). What the code does not say stays None.
"""
from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import Iterator

from . import api
from .evaluate import CallVal, Evaluator, Frames, ParamVal, launch_fact
from .kernel_values import KernelValues, RefFact, kernel_values
from .launch_specs import first_spec_defect
from .scopes import Scope
from .tpu_blocks import first_mapping_defect, foreign_scratch
from .transforms import BATCH

_DS = {f"{api.PL}.ds", f"{api.PL}.dslice", f"{api.PL}.Slice"}
_TPU_LOAD = {f"{api.PLTPU}.load", f"{api.PL}.load"}
_TPU_STORE = {f"{api.PLTPU}.store", f"{api.PL}.store"}
# DMA starts and copies: (positions of the Ref operands, their keywords).
_DMAS = {f"{api.PLTPU}.make_async_copy": ((0, 1), ("src_ref", "dst_ref")),
         f"{api.PLTPU}.async_copy": ((0, 1), ("src_ref", "dst_ref")),
         f"{api.PLTPU}.sync_copy": ((0, 1), ("src_ref", "dst_ref")),
         f"{api.PLTPU}.make_async_remote_copy": ((0, 1), ("src_ref", "dst_ref"))}
# Traced integer scalars a kernel computes from nothing the code spells (the grid position).
_SCALAR_SOURCES = {f"{api.PL}.program_id", f"{api.PL}.num_programs"}
_MULTIPLE_OF = f"{api.PL}.multiple_of"
_INDEX_ARRAYS = {"jax.numpy.arange", "jax.lax.iota", "jax.lax.broadcasted_iota", "jax.numpy.array",
                 "jax.numpy.asarray", "jax.numpy.argsort", "jax.numpy.nonzero", "jax.numpy.where"}
_LOOPS = {"jax.lax.fori_loop": 2}  # the body's position: its first parameter is the loop index
_LOOP_DECORATORS = {f"{api.PL}.loop"}
_MINIMUM = {"jax.numpy.minimum", "jax.lax.min", "builtins.min"}
_MAX_DEPTH = 8


@dataclass(frozen=True)
class IndexEntry:
    """One entry of an index: ``kind`` "all" (``...``), "slice" (a Python slice), "ds"
    (``pl.ds``) or "value" (an int, a traced scalar or an index array); ``stride`` the constant
    stride (1 when none is written, None when it is not a constant)."""

    kind: str
    node: ast.expr
    start: ast.expr | None = None
    size: ast.expr | None = None
    stride: int | None = 1


Index = tuple[IndexEntry, ...]
# A ``ref.at[...]`` subscript, the function it is written in and the frames it is read in.
ViewSite = tuple[ast.Subscript, Scope, Frames]


@dataclass
class RefAccess:
    """One access of a kernel Ref: ``kind`` "load", "store" or "dma"."""

    kind: str
    param: str
    fact: RefFact
    node: ast.AST  # what to underline: the subscript, the call
    scope: Scope
    frames: Frames
    indexer: Index | None  # the index the lowering reads (None: not readable)
    views: tuple[Index | None, ...]  # the ``.at[...]`` views sliced before it
    view_nodes: tuple[ViewSite, ...]
    value: ast.expr | None = None  # what a store writes
    mask: ast.expr | None = None

    @property
    def rank(self) -> int | None:
        return len(self.fact.shape) if self.fact.shape is not None else None


class RefAccesses:
    """The Ref accesses of one launch's kernel and what the code says of their values."""

    def __init__(self, ev: Evaluator, launch, values: KernelValues, loop_bodies: set[int]) -> None:
        self.ev = ev
        self.launch = launch
        self.values = values
        self.loop_bodies = loop_bodies  # ids of the scopes whose first parameter is a loop index
        self.accesses: list[RefAccess] = []

    def __iter__(self) -> Iterator[RefAccess]:
        return iter(self.accesses)

    def space(self, fact: RefFact) -> str | None:
        """The memory space of a kernel Ref as the TPU lowering sees it ("VMEM", "SMEM", "ANY",
        "HBM"), None where the code does not surely say: a ``memory_space=`` whose value is not
        read (``smem_on_tpu()``) is not the default, and a spec list that was not matched with the
        operands says nothing."""
        if fact.space is not None:
            return fact.space
        if fact.role not in ("in", "out") or self.launch.api.name != api.PALLAS_CALL:
            return None
        opts = self.launch.options
        if fact.spec is None:
            written = "grid_spec" in opts or ("in_specs" if fact.role == "in" else "out_specs") in opts
            return None if written else "VMEM"
        node, scope, order = fact.spec
        v = self.ev.value(node, scope, order)
        if not isinstance(v, CallVal) or self.ev.called_api(v) != f"{api.PL}.BlockSpec":
            return None
        site = v.site
        if site.has_star or len(site.node.args) > 2 or self.ev.kwarg(site, "memory_space") is not None:
            return None  # (a memory space the code writes but the analysis did not read)
        return "VMEM"

    # -- index entries -------------------------------------------------------------------------
    def scalar_kind(self, node: ast.expr, scope: Scope, frames: Frames, depth: int = 0) -> str | None:
        """"int" (a Python int), "traced" (a traced integer scalar: the grid position, a loop
        index, a scalar read from SMEM, arithmetic on those), "array" (an index array), or None
        when the code does not say."""
        ev = self.ev
        if depth > _MAX_DEPTH:
            return None
        with ev.within(frames):
            c = ev.const(node, scope)
        if isinstance(c, int) and not isinstance(c, bool):
            return "int"
        if isinstance(node, ast.Name):
            got = self._name_source(node, scope, frames)
            if got == "loop-index":
                return "traced"
            if got is None:
                return None
            return self.scalar_kind(got[0], got[1], got[2], depth + 1)
        if isinstance(node, ast.BinOp):
            kinds = {self.scalar_kind(node.left, scope, frames, depth + 1),
                     self.scalar_kind(node.right, scope, frames, depth + 1)}
            if None in kinds:
                return None
            return "array" if "array" in kinds else ("traced" if "traced" in kinds else "int")
        if isinstance(node, ast.UnaryOp):
            return self.scalar_kind(node.operand, scope, frames, depth + 1)
        if isinstance(node, ast.Call):
            name = self._api(node, scope, frames)
            if name in _SCALAR_SOURCES:
                return "traced"
            if name == _MULTIPLE_OF and node.args:
                return self.scalar_kind(node.args[0], scope, frames, depth + 1)
            if name in _INDEX_ARRAYS:
                return "array"
            return None
        if isinstance(node, ast.Subscript):
            read = self._read_of(node, scope, frames)
            if read is not None and self.space(read.fact) == "SMEM":
                return "traced"  # (a read of SMEM that lowers is a scalar)
        return None

    def divisor(self, node: ast.expr, scope: Scope, frames: Frames, depth: int = 0) -> int:
        """The largest number the code shows ``node`` is a multiple of (1 when it shows none)."""
        ev = self.ev
        if depth > _MAX_DEPTH:
            return 1
        with ev.within(frames):
            c = ev.const(node, scope)
        if isinstance(c, int) and not isinstance(c, bool):
            return abs(c) if c else 0
        if isinstance(node, ast.Name):
            got = self._name_source(node, scope, frames)
            return self.divisor(got[0], got[1], got[2], depth + 1) if isinstance(got, tuple) else 1
        if isinstance(node, ast.BinOp):
            left = self.divisor(node.left, scope, frames, depth + 1)
            right = self.divisor(node.right, scope, frames, depth + 1)
            if isinstance(node.op, ast.Mult):
                return left * right
            if isinstance(node.op, (ast.Add, ast.Sub, ast.Mod)):
                return math.gcd(left, right)
            if isinstance(node.op, ast.LShift):
                with ev.within(frames):
                    shift = ev.const(node.right, scope)
                return left << shift if isinstance(shift, int) and 0 <= shift < 32 else 1
            return 1
        if isinstance(node, ast.Call) and self._api(node, scope, frames) == _MULTIPLE_OF and len(node.args) == 2:
            with ev.within(frames):
                m = ev.const(node.args[1], scope)
            return max(m, self.divisor(node.args[0], scope, frames, depth + 1)) if isinstance(m, int) else 1
        return 1

    def mosaic_proves_multiple(self, node: ast.expr, scope: Scope, frames: Frames, k: int,
                               depth: int = 0) -> bool | None:
        """Whether Mosaic's divisibility check (``isGuaranteedDivisible``: constants,
        ``pl.multiple_of``, products with a proven factor, sums, differences, remainders and
        minima of proven terms) proves the traced index ``node`` a multiple of ``k``; None where
        the code does not say what the index is made of."""
        ev = self.ev
        if depth > _MAX_DEPTH:
            return None
        with ev.within(frames):
            c = ev.const(node, scope)
        if isinstance(c, int) and not isinstance(c, bool):
            return c % k == 0
        if isinstance(node, ast.Name):
            got = self._name_source(node, scope, frames)
            if got == "loop-index":
                return False
            return None if got is None else self.mosaic_proves_multiple(got[0], got[1], got[2], k, depth + 1)
        if isinstance(node, ast.BinOp):
            parts = [self.mosaic_proves_multiple(n, scope, frames, k, depth + 1) for n in (node.left, node.right)]
            if isinstance(node.op, ast.Mult):
                return True if True in parts else (None if None in parts else False)
            if isinstance(node.op, (ast.Add, ast.Sub, ast.Mod)):
                return False if False in parts else (None if None in parts else True)
            if isinstance(node.op, (ast.LShift, ast.RShift, ast.FloorDiv, ast.BitAnd, ast.BitOr)):
                return False if self.scalar_kind(node, scope, frames) == "traced" else None
            return None
        if isinstance(node, ast.Call):
            name = self._api(node, scope, frames)
            if name == _MULTIPLE_OF and len(node.args) == 2:
                with ev.within(frames):
                    m = ev.const(node.args[1], scope)
                return m % k == 0 if isinstance(m, int) else None
            if name in _SCALAR_SOURCES:
                return False
            if name in _MINIMUM and len(node.args) == 2 and not node.keywords:
                parts = [self.mosaic_proves_multiple(n, scope, frames, k, depth + 1) for n in node.args]
                return False if False in parts else (None if None in parts else True)
            return None
        if isinstance(node, ast.Subscript) and self.scalar_kind(node, scope, frames) == "traced":
            return False  # (a value read from memory proves nothing)
        return None

    # -- helpers -------------------------------------------------------------------------------
    def _api(self, node: ast.Call, scope: Scope, frames: Frames) -> str | None:
        with self.ev.within(frames):
            v = self.ev.value(node, scope)
        return self.ev.called_api(v) if isinstance(v, CallVal) else None

    def _name_source(self, node: ast.Name, scope: Scope, frames: Frames):
        """(expression, scope, frames) a name stands for: its one assignment, or what the call
        the kernel reached the helper by passes for a parameter; "loop-index" for the first
        parameter of a ``lax.fori_loop`` body or a ``pl.loop`` function; None otherwise."""
        return name_source(self.ev, node, scope, frames, self.loop_bodies)

    def _read_of(self, node: ast.Subscript, scope: Scope, frames: Frames) -> RefAccess | None:
        target = resolve_ref(self.ev, node.value, scope, frames, self.loop_bodies, self.launch.kernel)
        if target is None:
            return None
        param, view_nodes = target
        fact = self.values.ref(param)
        if fact is None:
            return None
        own = "whole" if _whole(node.slice) else index_entries(self.ev, node.slice, scope, frames)
        return _access(self.ev, "load", param, fact, node, scope, frames, view_nodes, own)


def name_source(ev: Evaluator, node: ast.Name, scope: Scope, frames: Frames, loop_bodies: set[int]):
    """See :meth:`RefAccesses._name_source`."""
    bindings = scope.bindings.get(node.id) or []
    if len(bindings) == 1 and bindings[0].kind == "assign" and bindings[0].node is not None:
        return bindings[0].node, scope, frames
    if len(bindings) == 1 and bindings[0].kind == "param":
        if id(scope) in loop_bodies and scope.params and scope.params[0][0] == node.id:
            return "loop-index"
        with ev.within(frames):
            got = ev.argument_for(scope, node.id)
        return (got[0], got[1], got[3]) if got is not None else None
    if not bindings and scope.parent is not None and scope.kind in ("function", "lambda"):
        outer: Scope | None = scope.parent  # (a closure: the enclosing function's name)
        while outer is not None and node.id not in outer.bindings and outer.kind != "module":
            outer = outer.parent
        if outer is not None and outer.kind != "module":
            return name_source(ev, node, outer, tuple(f for f in frames if f.target is not scope), loop_bodies)
    return None


def resolve_ref(ev: Evaluator, node: ast.expr, scope: Scope, frames: Frames, loop_bodies: set[int],
                kernel: Scope | None, depth: int = 0) -> tuple[str, tuple[ViewSite, ...]] | None:
    """(kernel parameter, the ``.at[...]`` subscripts taken on it in order) that ``node``
    names; None when it is not surely a kernel parameter."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "at":
        inner = resolve_ref(ev, node.value.value, scope, frames, loop_bodies, kernel, depth + 1)
        if inner is None:
            return None
        return inner[0], inner[1] + ((node, scope, frames),)
    if not isinstance(node, ast.Name):
        return None
    with ev.within(frames):
        v = ev.value(node, scope)
    if isinstance(v, ParamVal):
        return (v.name, ()) if v.scope is kernel else None
    got = name_source(ev, node, scope, frames, loop_bodies)
    if not isinstance(got, tuple):
        return None
    return resolve_ref(ev, got[0], got[1], got[2], loop_bodies, kernel, depth + 1)


def index_entries(ev: Evaluator, index: ast.expr, scope: Scope, frames: Frames) -> Index | None:
    """The entries of a subscript's index; None for one that cannot be read (a starred entry,
    ``None`` new axes, an index tuple held in a name)."""
    elts = index.elts if isinstance(index, ast.Tuple) else [index]
    out: list[IndexEntry] = []
    for e in elts:
        if isinstance(e, ast.Starred) or (isinstance(e, ast.Constant) and e.value is None):
            return None
        if isinstance(e, ast.Constant) and e.value is Ellipsis:
            out.append(IndexEntry("all", e))
        elif isinstance(e, ast.Slice):
            stride: int | None = 1
            if e.step is not None:
                with ev.within(frames):
                    s = ev.const(e.step, scope)
                stride = s if isinstance(s, int) and not isinstance(s, bool) else None
            out.append(IndexEntry("slice", e, e.lower, None, stride))
        elif isinstance(e, ast.Call) and _called(ev, e, scope, frames) in _DS:
            out.append(_ds_entry(ev, e, scope, frames))
        else:
            out.append(IndexEntry("value", e))
    return tuple(out)


def _ds_entry(ev: Evaluator, call: ast.Call, scope: Scope, frames: Frames) -> IndexEntry:
    args = list(call.args)
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    start = kw.get("start", args[0] if args else None)
    size = kw.get("size", args[1] if len(args) > 1 else None)
    stride_node = kw.get("stride", args[2] if len(args) > 2 else None)
    stride: int | None = 1
    if stride_node is not None:
        with ev.within(frames):
            s = ev.const(stride_node, scope)
        stride = s if isinstance(s, int) and not isinstance(s, bool) else None
    return IndexEntry("ds", call, start, size, stride)


def _called(ev: Evaluator, node: ast.Call, scope: Scope, frames: Frames) -> str | None:
    with ev.within(frames):
        v = ev.value(node.func, scope)
    return ev.ext_name(v)


def _access(ev: Evaluator, kind: str, param: str, fact: RefFact, node: ast.AST, scope: Scope, frames: Frames,
            view_nodes: tuple[ViewSite, ...], own: Index | None | str,
            value: ast.expr | None = None, mask: ast.expr | None = None) -> RefAccess:
    """A load or store: ``own`` is the access's own index ("whole" for ``[...]`` or none)."""
    views = tuple(index_entries(ev, v.slice, s, f) for v, s, f in view_nodes)
    if own == "whole" and view_nodes:
        indexer, prior, prior_nodes = views[-1], views[:-1], view_nodes[:-1]
    elif own == "whole":
        indexer, prior, prior_nodes = (), (), ()
    else:
        indexer, prior, prior_nodes = own, views, view_nodes  # type: ignore[assignment]
    return RefAccess(kind, param, fact, node, scope, frames, indexer, prior, prior_nodes, value, mask)


def _whole(index: ast.expr) -> bool:
    return isinstance(index, ast.Constant) and index.value is Ellipsis \
        or (isinstance(index, ast.Tuple) and not index.elts)


@launch_fact
def ref_accesses(ev: Evaluator, launch, reached) -> RefAccesses | None:
    """The Ref accesses of the functions a launch's kernel reaches (``reached``: the engine's
    list for this launch); None when the kernel's Refs cannot be matched with the launch."""
    values = kernel_values(ev, launch)
    if values is None:
        return None
    if any(t.kind == BATCH for t in launch.transforms):
        return None  # (vmap adds dims to every Ref: the kernel's indices no longer say what is read)
    loop_bodies = _loop_bodies(ev, reached)
    result = RefAccesses(ev, launch, values, loop_bodies)
    for r in reached:
        if r.root is not None and r.root is not launch.kernel:
            continue
        node = r.scope.node
        if node is None:
            continue
        o = ev.other(r.scope)
        for n in _own_nodes(node):
            result.accesses.extend(_accesses_at(o, values, n, r.scope, r.frames, loop_bodies))
    result.accesses.sort(key=lambda a: (getattr(a.node, "lineno", 0), getattr(a.node, "col_offset", 0)))
    return result


def _loop_bodies(ev: Evaluator, reached) -> set[int]:
    """The scopes a ``lax.fori_loop`` runs as its body or ``pl.loop`` decorates (their first
    parameter is the loop index)."""
    out: set[int] = set()
    for r in reached:
        if not r.chain:
            continue
        step = r.chain[-1]
        call = getattr(step, "node", None)
        if isinstance(call, ast.Call) and step.scope is not None:
            name = ev.ext_name(ev.value(call.func, step.scope))
            position = _LOOPS.get(name or "")
            if position is not None and len(call.args) > position:
                out.add(id(r.scope))
        decorators = getattr(r.scope.node, "decorator_list", [])
        for d in decorators:
            func = d.func if isinstance(d, ast.Call) else d
            with ev.within(r.frames):
                name = ev.ext_name(ev.value(func, r.scope.parent)) if r.scope.parent is not None else None
            if name in _LOOP_DECORATORS:
                out.add(id(r.scope))
    return out


def _own_nodes(fn: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body, nested functions and lambdas left out (each is a scope
    of its own, reached separately)."""
    body = fn.body if isinstance(fn.body, list) else [fn.body]  # type: ignore[attr-defined]
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    stack: list[ast.AST] = [n for n in reversed(body) if not isinstance(n, nested)]
    while stack:
        n = stack.pop()
        yield n
        for child in reversed(list(ast.iter_child_nodes(n))):
            if isinstance(child, nested):
                continue
            stack.append(child)


def _accesses_at(ev: Evaluator, values: KernelValues, n: ast.AST, scope: Scope, frames: Frames,
                 loop_bodies: set[int]) -> list[RefAccess]:
    out: list[RefAccess] = []

    def target(node: ast.expr):
        got = resolve_ref(ev, node, scope, frames, loop_bodies, values.kernel)
        if got is None:
            return None
        fact = values.ref(got[0])
        if fact is None or (fact.role != "scratch" and fact.spec is None and fact.dtype is None
                            and fact.shape is None):
            return None  # (an operand with no spec that may be a pytree of Refs: not surely one Ref)
        return got[0], fact, got[1]

    if isinstance(n, ast.Subscript) and not (isinstance(n.value, ast.Attribute) and n.value.attr == "at"):
        t = target(n.value)
        if t is not None:
            own = "whole" if _whole(n.slice) else index_entries(ev, n.slice, scope, frames)
            if isinstance(n.ctx, ast.Load):
                out.append(_access(ev, "load", t[0], t[1], n, scope, frames, t[2], own))
    elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Subscript):
        t = target(n.target.value)
        if t is not None:
            own = "whole" if _whole(n.target.slice) else index_entries(ev, n.target.slice, scope, frames)
            out.append(_access(ev, "load", t[0], t[1], n.target, scope, frames, t[2], own))
            out.append(_access(ev, "store", t[0], t[1], n.target, scope, frames, t[2], own, n.value))
    elif isinstance(n, ast.Call):
        name = _called(ev, n, scope, frames)
        kw = {k.arg: k.value for k in n.keywords if k.arg}
        if name in _TPU_LOAD | _TPU_STORE and n.args:
            t = target(n.args[0])
            if t is not None:
                if name in _TPU_STORE:
                    value = n.args[1] if len(n.args) > 1 else kw.get("val")
                    out.append(_access(ev, "store", t[0], t[1], n, scope, frames, t[2], "whole",
                                       value, kw.get("mask")))
                else:
                    out.append(_access(ev, "load", t[0], t[1], n, scope, frames, t[2], "whole",
                                       None, kw.get("mask")))
        elif name in _DMAS:
            positions, keywords = _DMAS[name]
            for pos, key in zip(positions, keywords):
                node = kw.get(key, n.args[pos] if len(n.args) > pos else None)
                t = target(node) if node is not None else None
                if t is not None and node is not None:
                    views = tuple(index_entries(ev, v.slice, s, f) for v, s, f in t[2])
                    out.append(RefAccess("dma", t[0], t[1], node, scope, frames, (), views, t[2]))
    if isinstance(n, (ast.Assign, ast.AnnAssign)):
        for tgt in (n.targets if isinstance(n, ast.Assign) else [n.target]):
            if isinstance(tgt, ast.Subscript) and not (isinstance(tgt.value, ast.Attribute) and tgt.value.attr == "at"):
                t = target(tgt.value)
                if t is not None:
                    own = "whole" if _whole(tgt.slice) else index_entries(ev, tgt.slice, scope, frames)
                    out.append(_access(ev, "store", t[0], t[1], tgt, scope, frames, t[2], own, n.value))
    return out





# -- what the TPU lowering refuses ---------------------------------------------------------------
ANY_LOAD_STORE = "tpu-any-memory-load-store"
SCALAR_STORE_VMEM = "tpu-scalar-store-vmem"
SMEM_VECTOR = "tpu-smem-vector-access"
INT_INDEXING = "tpu-int-indexing"
STRIDED_REF_SLICE = "tpu-strided-ref-slice"
STRIDED_LANES = "tpu-strided-lane-access"
UNPROVEN_LANE_ALIGNMENT = "tpu-unproven-lane-alignment"
MASKED_STORE_NARROW = "tpu-masked-store-non-32-bit"
LANES = 128
_MOSAIC = "MosaicError: INTERNAL: Mosaic failed to compile TPU kernel: "


@dataclass
class Defect:
    """The first check one access fails: ``kind`` the error kind's slug, ``error`` what is
    raised ("Class: message"), ``detail`` the numbers to say, ``node`` what to underline;
    ``start`` a lane start the code shows a multiple of 128 that Mosaic cannot prove."""

    kind: str
    access: RefAccess
    error: str
    detail: str
    node: ast.AST
    start: ast.expr | None = None
    scope: Scope | None = None  # the function ``node`` is written in (None: the access's)

    @property
    def where(self) -> Scope:
        return self.scope if self.scope is not None else self.access.scope


def access_defects(accesses: RefAccesses) -> list[Defect]:
    """The first defect of each access, in the order the lowering checks them
    (``_canonicalize_transforms_to_indexer``, the mask, ``_transform_ref``, the memory space,
    then what Mosaic in libtpu refuses), accesses in source order."""
    out: list[Defect] = []
    ev, launch = accesses.ev, accesses.launch
    if launch.api.name == api.PALLAS_CALL and (first_spec_defect(ev, launch) is not None
                                               or first_mapping_defect(ev, launch) is not None
                                               or foreign_scratch(ev, launch) is not None):
        return out  # (the launch's specs, blocks or scratch fail first, before the kernel is lowered)
    seen: set[tuple[int, str, str]] = set()
    for a in accesses:
        key = (id(a.node), a.kind, a.param)
        if key in seen:
            continue
        seen.add(key)
        d = _first_defect(accesses, a)
        if d is not None:
            out.append(d)
    return out


def _first_defect(acc: RefAccesses, a: RefAccess) -> Defect | None:
    fact = a.fact
    name = a.param
    if a.kind in ("load", "store") and a.indexer is not None:
        for e in a.indexer:
            if e.kind == "value" and acc.scalar_kind(e.node, a.scope, a.frames) == "array":
                return Defect(INT_INDEXING, a, "ValueError: Cannot do int indexing on TPU",
                              f"`{name}` is indexed with an index array", e.node)
    if a.kind == "load" and a.mask is not None:
        return None  # (a masked load raises a bare NotImplementedError first)
    if a.kind == "store" and a.mask is not None and fact.dtype is not None:
        width = _BITS.get(fact.dtype)
        if width is not None and width != 32:
            return Defect(MASKED_STORE_NARROW, a, "NotImplementedError: masked swap with non-32-bit data",
                          f"a masked store into `{name}`, a {fact.dtype} Ref ({width}-bit data)", a.node)
    for view, (node, scope, _) in zip(a.views, a.view_nodes):
        strided = [e for e in view or () if e.kind in ("ds", "slice") and e.stride not in (1, None)]
        if strided:
            return Defect(STRIDED_REF_SLICE, a, "NotImplementedError: Strided slices of references are unsupported.",
                          f"the view of `{name}` has stride {strided[0].stride}", node, scope=scope)
    if a.kind == "dma" or a.indexer is None:
        return None
    space = acc.space(fact)
    if space == "SMEM":
        if _surely_not_scalar(a):
            verb = "load" if a.kind == "load" else "store"
            message = "Can only load scalars from SMEM" if verb == "load" else "Can only store scalars to SMEM"
            return Defect(SMEM_VECTOR, a, f"ValueError: {message}",
                          f"this {verb} of `{name}`, an SMEM Ref, moves a vector", a.node)
        return None
    if space in ("ANY", "HBM"):
        extra = " ANY memory space can only be accessed using async_copy." if space == "ANY" else ""
        what = "Loads are only allowed" if a.kind == "load" else "Loads and stores are only allowed"
        return Defect(ANY_LOAD_STORE, a, f"ValueError: {what} on VMEM and SMEM references.{extra}",
                      f"`{name}` lives in {space} memory and is {'read' if a.kind == 'load' else 'written'} directly",
                      a.node)
    if space != "VMEM":
        return None
    if a.kind == "store" and not a.views and _surely_scalar(acc, a):
        return Defect(SCALAR_STORE_VMEM, a, "ValueError: Cannot store scalars to VMEM",
                      f"`{name}` (VMEM) is written one element at a time", a.node)
    if a.views:
        return None  # (which dim an entry stands for, after a view, is not followed)
    strided = [e for e in a.indexer if e.kind in ("ds", "slice") and isinstance(e.stride, int) and e.stride > 1]
    last = fact.shape[-1] if fact.shape else None
    if strided and a.kind == "load" and last is not None and last != LANES:
        # (seen on a TPU v5e: a strided load from a Ref whose last dim is 256, whichever dim the
        # stride is on; the same loads from 128-lane Refs compile)
        return Defect(STRIDED_LANES, a, _MOSAIC + "Not Implemented: The last dim size is not 128 in original "
                                                  "base memref",
                      f"`{name}` is read with stride {strided[0].stride} and its last dim is {last}, not {LANES}",
                      a.node)
    lane = _lane_entry(a)
    if lane is None:
        return None
    if lane.kind in ("ds", "slice") and isinstance(lane.stride, int) and lane.stride > 1 and last == LANES:
        return Defect(STRIDED_LANES, a, _MOSAIC + "Not Implemented: Stride on last dim is not 1",
                      f"the last (lane) dim of `{name}` is indexed with stride {lane.stride}", lane.node)
    if lane.kind == "ds" and lane.stride == 1 and lane.start is not None and lane.size is not None:
        return _unproven_start(acc, a, lane)
    return None


def _unproven_start(acc: RefAccesses, a: RefAccess, lane: IndexEntry) -> Defect | None:
    with acc.ev.within(a.frames):
        size = acc.ev.const(lane.size, a.scope)
    if not isinstance(size, int) or isinstance(size, bool) or size <= 0 or size % LANES:
        return None
    start = lane.start
    assert start is not None
    if acc.scalar_kind(start, a.scope, a.frames) != "traced":
        return None
    if acc.mosaic_proves_multiple(start, a.scope, a.frames, LANES) is not False:
        return None
    dim = (a.rank or 1) - 1
    shown = acc.divisor(start, a.scope, a.frames)
    return Defect(UNPROVEN_LANE_ALIGNMENT, a,
                  _MOSAIC + "E2003: CompileTimeMosaicUnprovenMemoryAccessAlignment: cannot statically prove "
                            f"that index in dimension {dim} is a multiple of {LANES}",
                  f"the lane start of `{a.param}` is computed at run time and Mosaic cannot prove it a multiple "
                  f"of {LANES}", start, start if shown % LANES == 0 and shown else None)


def _lane_entry(a: RefAccess) -> IndexEntry | None:
    """The index entry of the Ref's last (lane) dim, where the index says which it is."""
    index = a.indexer
    if not index or index[-1].kind == "all":
        return None
    if any(e.kind == "all" for e in index[:-1]):
        return index[-1]
    return index[-1] if a.rank is not None and len(index) == a.rank else None


def _surely_not_scalar(a: RefAccess) -> bool:
    """The access moves a vector: a slice or ``pl.ds`` in its index, or fewer entries than the
    Ref has dims."""
    index = a.indexer or ()
    if any(e.kind in ("slice", "ds") for e in index):
        return True
    if a.views:
        return False
    taken = sum(1 for e in index if e.kind == "value")
    return a.rank is not None and taken < a.rank


def _surely_scalar(acc: RefAccesses, a: RefAccess) -> bool:
    """Every dim of the Ref is indexed with one integer."""
    index = a.indexer or ()
    return a.rank is not None and len(index) == a.rank > 0 and all(
        e.kind == "value" and acc.scalar_kind(e.node, a.scope, a.frames) in ("int", "traced") for e in index)


# Bits per element as the lowering stores them (``val_aval.dtype.itemsize``).
_BITS = {"float32": 32, "int32": 32, "uint32": 32, "bfloat16": 16, "float16": 16, "int16": 16, "uint16": 16,
         "int8": 8, "uint8": 8, "bool": 8, "float8_e4m3fn": 8, "float8_e5m2": 8, "float64": 64, "int64": 64}

__all__ = ["Defect", "Index", "IndexEntry", "RefAccess", "RefAccesses", "access_defects", "index_entries",
           "ref_accesses", "resolve_ref"]
