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
from .kernel_values import KernelValues, kernel_values
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


__all__ = ["COPY_APIS", "KernelSemaphores", "SEMAPHORE_TYPES", "Semaphore", "SemaphoreView", "semaphore_allocation"]
