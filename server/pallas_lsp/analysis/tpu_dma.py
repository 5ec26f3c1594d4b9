"""The semaphores a Pallas TPU kernel's DMAs and signals use, as far as the code spells them.

A kernel gets its semaphores as scratch (``scratch_shapes=[pltpu.SemaphoreType.DMA((2,))]``) or
from ``pl.run_scoped(body, pltpu.SemaphoreType.REGULAR)``, and hands them, whole or indexed
(``sems.at[slot]``), to ``pltpu.make_async_copy``/``async_copy`` and ``pl.semaphore_signal``/
``semaphore_wait``. jax checks them when it traces the kernel (``jax/_src/pallas/mosaic/
primitives.py``: a DMA wait needs a DMA semaphore, a DMA start or a signal a ``()``-shaped one).
This module says which allocation an argument is and what shape it has after its indexing; an
argument it cannot follow is None, and a rule built on it stays quiet.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from . import api
from .evaluate import CallVal, Evaluator, Order
from .kernel_values import KernelValues, RefFact, kernel_values
from .ref_access import Index, RefAccess, RefAccesses
from .scopes import Scope
from .shapes import dimension, shape_literal

Where = tuple[ast.AST, Scope, Order]

SEMAPHORE_TYPES = {f"{api.PLTPU}.SemaphoreType.{kind}": kind for kind in ("REGULAR", "DMA", "BARRIER")}
COPY_APIS = {f"{api.PLTPU}.make_async_copy": "make", f"{api.PLTPU}.async_copy": "started"}
RUN_SCOPED = f"{api.PL}.run_scoped"


@dataclass(frozen=True)
class Semaphore:
    """One semaphore allocation: its type ("REGULAR", "DMA", "BARRIER"), the array shape it
    allocates (``()`` for one semaphore) and where it is written."""

    kind: str
    shape: tuple[int, ...]
    allocated: Where


@dataclass(frozen=True)
class SemaphoreView:
    """A semaphore argument: the allocation it names and its shape after the ``.at[...]``
    indexing written on it."""

    semaphore: Semaphore
    shape: tuple[int, ...]


def semaphore_allocation(ev: Evaluator, where: Where) -> Semaphore | None:
    """The semaphore an allocation expression makes (``pltpu.SemaphoreType.DMA``,
    ``pltpu.SemaphoreType.REGULAR((4,))``), or None when it is no semaphore or its shape is
    not spelled out."""
    v = ev.value(*where)
    if isinstance(v, CallVal):
        kind = SEMAPHORE_TYPES.get(ev.called_api(v) or "")
        if kind is None or v.site.has_star:
            return None
        node = ev.kwarg(v.site, "shape") or ev.posarg(v.site, 0)
        shape = shape_literal(ev, node, v.site.scope, v.order) if node is not None else ()
        return Semaphore(kind, tuple(shape), where) if shape is not None else None
    kind = SEMAPHORE_TYPES.get(ev.ext_name(v) or "")
    return Semaphore(kind, (), where) if kind is not None else None


class KernelSemaphores:
    """The semaphores one launch's kernel code can name: its scratch parameters (and the helper
    parameters the kernel fills with them, through :class:`KernelValues`) and the parameters of
    the ``pl.run_scoped`` bodies it runs."""

    def __init__(self, ev: Evaluator, values: KernelValues) -> None:
        self.ev = ev
        self.values = values
        self._scoped: dict[int, dict[str, Where]] | None = None

    @classmethod
    def of(cls, ev: Evaluator, launch) -> "KernelSemaphores | None":
        values = kernel_values(ev, launch)
        return cls(ev, values) if values is not None else None

    def view(self, node: ast.AST, scope: Scope) -> SemaphoreView | None:
        """The semaphore ``node`` names (``sem``, ``sems.at[i]``, ``sems.at[i, j]``) and its shape."""
        indices: list[ast.expr] = []
        while isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "at":
            entries = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            indices = list(entries) + indices
            node = node.value.value
        semaphore = self._allocation(node, scope)
        if semaphore is None or len(indices) > len(semaphore.shape):
            return None
        for entry in indices:
            if isinstance(entry, ast.Slice) or isinstance(entry, ast.Starred):
                return None  # (a slice keeps a dimension of a size not followed here)
            if isinstance(entry, ast.Constant) and entry.value is Ellipsis:
                return None
            if isinstance(entry, ast.Call):
                return None  # (``pl.ds(...)`` keeps a dimension)
            if dimension(self.ev, entry, scope) is None and not isinstance(entry, (ast.Name, ast.BinOp, ast.Subscript)):
                return None
        return SemaphoreView(semaphore, semaphore.shape[len(indices):])

    def _allocation(self, node: ast.AST, scope: Scope) -> Semaphore | None:
        if not isinstance(node, ast.Name):
            return None
        ref = self.values.ref_name(node, scope)
        if ref is not None:
            fact = self.values.ref(ref)
            if fact is None or fact.role != "scratch" or fact.source is None:
                return None
            return semaphore_allocation(self.ev, fact.source)
        b = self.ev.lookup(node.id, scope)
        if b is None or b.kind != "param" or b.scope is None:
            return None
        allocated = self._run_scoped_params().get(id(b.scope), {}).get(node.id)
        return semaphore_allocation(self.ev, allocated) if allocated is not None else None

    def _run_scoped_params(self) -> dict[int, dict[str, Where]]:
        """body scope id -> its parameters' allocations, for each ``pl.run_scoped(body, ...)``
        of the kernel's code."""
        if self._scoped is not None:
            return self._scoped
        self._scoped = {}
        ev = self.ev
        for scope in self.values.scopes():
            for cs in scope.calls:
                v = ev.value(cs.node, scope, ev.order_of(cs))
                if not isinstance(v, CallVal) or ev.called_api(v) != RUN_SCOPED or cs.has_star:
                    continue
                body = ev.function_of(ev.value(cs.node.args[0], scope, ev.order_of(cs))) if cs.node.args else None
                if body is None:
                    continue
                params = [p[0] for p in body.params if p[2] in ("posonly", "normal")]
                got: dict[str, Where] = {}
                for name, arg in zip(params, cs.node.args[1:]):
                    got[name] = (arg, scope, ev.order_of(cs))
                for kw in cs.node.keywords:
                    if kw.arg is not None:
                        got[kw.arg] = (kw.value, scope, ev.order_of(cs))
                self._scoped[id(body)] = got
        return self._scoped

    # -- waits -------------------------------------------------------------------------------
    def is_waited(self, copy: ast.Call, scope: Scope) -> bool:
        """Whether the kernel's code calls ``.wait()`` on the descriptor ``copy`` makes: on the
        call itself, on a name bound to it, or on the variable of a ``for`` loop over a list the
        call is in (a list display, a comprehension, or ``.append``)."""
        return self.is_called(copy, "wait")

    def is_started(self, copy: ast.Call, scope: Scope) -> bool:
        """Whether the DMA ``copy`` describes is started: ``pltpu.async_copy`` starts it, a
        ``make_async_copy`` descriptor by ``.start()`` (found as :meth:`is_waited` finds waits)."""
        v = self.ev.value(copy, scope)
        if isinstance(v, CallVal) and COPY_APIS.get(self.ev.called_api(v) or "") == "started":
            return True
        return self.is_called(copy, "start")

    def is_called(self, copy: ast.Call, method: str) -> bool:
        for node, where in self.values.nodes():
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == method
                    and not node.args):
                continue
            if self._holds(node.func.value, where, copy, 0):
                return True
        return False

    def _holds(self, node: ast.AST, scope: Scope, copy: ast.Call, depth: int) -> bool:
        if node is copy:
            return True
        if depth > 3 or not isinstance(node, ast.Name):
            return False
        found = self.ev.lookup(node.id, scope)
        if found is None or found.scope is None:
            return False
        # (every binding of the name in its function: ``copy = make_async_copy(...)`` then
        # ``for copy in copies: copy.wait()`` rebinds it)
        for b in found.scope.bindings.get(node.id) or [found]:
            if b.kind == "assign" and (b.node is copy or (isinstance(b.node, ast.Name)
                                                          and self._holds(b.node, found.scope, copy, depth + 1))):
                return True
            if b.kind == "loop" and isinstance(b.stmt, (ast.For, ast.AsyncFor)) \
                    and self._in_list(b.stmt.iter, found.scope, copy, depth + 1):
                return True
        return False

    def _in_list(self, node: ast.AST, scope: Scope, copy: ast.Call, depth: int) -> bool:
        if isinstance(node, (ast.List, ast.Tuple)):
            return any(e is copy or self._holds(e, scope, copy, depth + 1) for e in node.elts)
        if isinstance(node, ast.ListComp):
            return node.elt is copy
        if isinstance(node, ast.Name):
            b = self.ev.lookup(node.id, scope)
            if b is None or b.scope is None or b.kind != "assign":
                return False
            if b.node is not None and self._in_list(b.node, b.scope, copy, depth + 1):
                return True
            for stmt in ast.walk(b.scope.node):  # (``copies.append(cp)``)
                if isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Attribute) and stmt.func.attr == "append" \
                        and isinstance(stmt.func.value, ast.Name) and stmt.func.value.id == node.id \
                        and len(stmt.args) == 1 and (stmt.args[0] is copy or self._holds(stmt.args[0], b.scope, copy,
                                                                                            depth + 1)):
                    return True
        return False


# -- the two ends of a DMA ---------------------------------------------------------------------
# The copies Mosaic lowers to one ``tpu.enqueue_dma`` per source/target pair, and where the two
# Refs are passed (positions, keywords).
DMA_ENDS = {f"{api.PLTPU}.make_async_copy": ((0, "src_ref"), (1, "dst_ref")),
            f"{api.PLTPU}.async_copy": ((0, "src_ref"), (1, "dst_ref")),
            f"{api.PLTPU}.sync_copy": ((0, "src_ref"), (1, "dst_ref"))}


@dataclass(frozen=True)
class DmaEnd:
    """The source or the target of a DMA: the kernel Ref it is (``param``, what the code says of
    it in ``fact``), and the element type and shape of the window the ``.at[...]`` views written
    on it leave, which is what ``tpu.enqueue_dma`` is given (None: not known)."""

    param: str
    fact: RefFact
    dtype: str | None
    shape: tuple[int, ...] | None


def dma_end(accesses: RefAccesses, access: RefAccess) -> DmaEnd:
    """What one DMA operand access (``RefAccess`` of kind "dma") names."""
    shape = access.fact.shape
    for view in access.views:
        if shape is None:
            break
        shape = view_shape(accesses, access, tuple(shape), view)
    return DmaEnd(access.param, access.fact, access.fact.dtype, tuple(shape) if shape is not None else None)


def view_shape(accesses: RefAccesses, access: RefAccess, shape: tuple[int, ...],
               view: Index | None) -> tuple[int, ...] | None:
    """The shape of ``ref.at[view]`` for a Ref of ``shape``, as Pallas's ``NDIndexer`` makes it:
    ``...`` and missing trailing entries keep dims whole, a slice or ``pl.ds`` keeps its size, a
    scalar index drops its dim. None where an entry's size (or whether it is a scalar) is not
    spelled out, or a stride is not 1 (a strided view fails before the DMA is verified)."""
    if view is None:
        return None
    ellipses = [i for i, e in enumerate(view) if e.kind == "all"]
    if len(ellipses) > 1 or len(view) - len(ellipses) > len(shape):
        return None
    if ellipses:
        at = ellipses[0]
        kept = len(shape) - (len(view) - 1)
        dims = list(range(at)) + list(range(at + kept, len(shape)))
        entries = list(view[:at]) + list(view[at + 1:])
    else:
        dims = list(range(len(view)))
        entries = list(view)
    out: list[int | None] = list(shape)
    ev = accesses.ev
    for dim, entry in zip(dims, entries):
        size = shape[dim]
        if entry.kind == "value":
            if accesses.scalar_kind(entry.node, access.scope, access.frames) not in ("int", "traced"):
                return None
            out[dim] = None  # (dropped)
            continue
        if entry.stride != 1:
            return None
        with ev.within(access.frames):
            if entry.kind == "ds":
                got = dimension(ev, entry.size, access.scope) if entry.size is not None else None
                if got is None or got < 0:
                    return None
                out[dim] = got
                continue
            node = entry.node
            if not isinstance(node, ast.Slice):
                return None
            lower = dimension(ev, node.lower, access.scope) if node.lower is not None else 0
            upper = dimension(ev, node.upper, access.scope) if node.upper is not None else size
        if lower is None or upper is None or not 0 <= lower <= upper <= size:
            return None  # (negative or clamped bounds: not followed)
        out[dim] = upper - lower
    return tuple(d for d in out if d is not None)


def dma_ends(accesses: RefAccesses, call: ast.Call, frames) -> tuple[DmaEnd, DmaEnd] | None:
    """(source, target) of the DMA ``call`` as the kernel reaches it in ``frames``; None when
    either is not surely one kernel Ref."""
    ends: dict[int, RefAccess] = {}
    for a in accesses:
        if a.kind == "dma" and a.frames == frames:
            ends[id(a.node)] = a
    picked = []
    for position, keyword in ((0, "src_ref"), (1, "dst_ref")):
        node = next((k.value for k in call.keywords if k.arg == keyword), None)
        if node is None and len(call.args) > position:
            node = call.args[position]
        access = ends.get(id(node)) if node is not None else None
        if access is None:
            return None
        picked.append(dma_end(accesses, access))
    return picked[0], picked[1]


__all__ = ["COPY_APIS", "DMA_ENDS", "DmaEnd", "KernelSemaphores", "SEMAPHORE_TYPES", "Semaphore", "SemaphoreView",
           "dma_end", "dma_ends", "semaphore_allocation", "view_shape"]
