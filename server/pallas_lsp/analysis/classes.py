"""Classes of the workspace, for ``self.X`` / ``cls.X`` in methods.

Test suites set a class attribute (``INTERPRET = False`` in a base class, ``INTERPRET = True``
in an ``...InterpretTest`` subclass) and launch with ``interpret=self.INTERPRET``. A method
defined in a class runs once for that class and once for every subclass that inherits it,
each with its own attribute values. This module answers, without running anything: the
subclasses of a class (in its module and in the modules that import it), the member an
attribute resolves to in a class's MRO, and whether a subclass still runs a given method.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import ast

from .scopes import Binding, Scope

if TYPE_CHECKING:  # (evaluate asks this module about classes: the evaluator is handed in, never imported)
    from .evaluate import Evaluator

_MAX_CLASSES = 200  # subclasses followed from one class
_MAX_MRO = 16


@dataclass(frozen=True)
class ClassRef:
    """A top-level class of a workspace module."""

    path: str | None
    name: str
    ev: Evaluator = field(compare=False, hash=False, repr=False)

    @property
    def info(self):
        return self.ev.index.classes.get(self.name)


def class_of(ev: Evaluator, cls_scope: Scope) -> ClassRef | None:
    """The class a class scope belongs to (any of its per-block scopes)."""
    ev = ev.other(cls_scope)
    if cls_scope.kind != "class" or cls_scope.name not in ev.index.classes:
        return None
    info = ev.index.classes[cls_scope.name]
    if not any(s is cls_scope for s in info.scopes):
        return None  # a class nested in a function: not followed
    return ClassRef(ev.index.path, cls_scope.name, ev)


def bases_of(ref: ClassRef) -> list[ClassRef | None]:
    """The base classes, in order; None for a base that is not a workspace class."""
    info = ref.info
    if info is None:
        return []
    if ref.ev.deps is not None:
        ref.ev.deps.bound.add(ref.name)
    out: list[ClassRef | None] = []
    for sc in info.scopes:
        if getattr(sc.block, "kind", None) == "member":
            continue  # (a member block is parsed under a stand-in `class _:`: no bases there)
        node = sc.node
        if ref.ev.deps is not None:
            ref.ev.deps.read(sc)
        for base in getattr(node, "bases", ()):
            v = ref.ev.value(base, sc.parent, None) if sc.parent is not None else None
            target = ref.ev.class_scope(v)
            out.append(class_of(ref.ev, target) if target is not None else None)
    return out


def mro(ref: ClassRef) -> tuple[list[ClassRef], bool]:
    """The classes searched for an attribute, nearest first (depth-first, as Python finds
    members in single-inheritance test hierarchies), and whether a base that is not a
    workspace class (``absltest.TestCase``...) was met on the way."""
    out: list[ClassRef] = []
    external = False
    todo = [ref]
    while todo and len(out) < _MAX_MRO:
        cur = todo.pop(0)
        if cur in out:
            continue
        out.append(cur)
        bases = bases_of(cur)
        external = external or any(b is None for b in bases)
        todo = [b for b in bases if b is not None] + todo
    return out, external


def member(ref: ClassRef, attr: str) -> tuple[ClassRef, Binding] | None:
    """Where ``attr`` is bound in the class's MRO: (the class that binds it, its last binding).
    None when no workspace class binds it (or one of their bases is unknown before it is found)."""
    classes, _ = mro(ref)
    for c in classes:
        if c.ev.deps is not None:
            c.ev.deps.bound.add(attr)
        info = c.info
        if info is not None and attr in info.members:
            return c, info.members[attr][-1]
        if info is not None and any(b is None for b in bases_of(c)):
            return None  # an unknown base may bind it first
    return None


def subclasses(ref: ClassRef) -> list[ClassRef]:
    """Every class that derives from ``ref``: in its module and in the workspace modules that
    import it (nearest first)."""
    ev = ref.ev
    paths = [ref.path]
    program = ev.program
    if program is not None and ref.path:
        paths += [p for p in program.importers_of(ref.path) if p != ref.path]  # type: ignore[attr-defined]
    known: list[ClassRef] = [ref]
    grew = True
    while grew and len(known) < _MAX_CLASSES:
        grew = False
        for path in paths:
            pev = ev if path == ref.path else program.evaluator(path)  # type: ignore[union-attr]
            if pev is None:
                continue
            if pev.deps is not None:
                pev.deps.used.update(k.name for k in known)  # a new class naming one of these
            for name, info in pev.index.classes.items():
                cand = ClassRef(pev.index.path, name, pev)
                if cand in known or not _may_derive(info, {k.name for k in known}):
                    continue
                if any(b in known for b in bases_of(cand)):
                    known.append(cand)
                    grew = True
    return known[1:]


def _may_derive(info, names: set[str]) -> bool:
    """Cheap prefilter: a base expression of the class mentions one of the names."""
    for sc in info.scopes:
        for base in getattr(sc.node, "bases", ()):
            for n in ast.walk(base):
                if (isinstance(n, ast.Name) and n.id in names) or (isinstance(n, ast.Attribute) and n.attr in names):
                    return True
    return False


def is_subclass(ref: ClassRef, of: ClassRef) -> bool:
    return of in mro(ref)[0]


def runs_method(ref: ClassRef, method: Scope) -> bool:
    """Whether calling ``method``'s name on an instance of ``ref`` runs ``method`` (or an
    override that calls it through ``super()``)."""
    found = member(ref, method.name)
    if found is None:
        return True  # not known otherwise: assume it does
    owner, b = found
    if b.kind != "def":
        return False
    node = b.node
    if node is method.node:
        return True
    # An override that calls super().<name>(...) still runs the base's body.
    for n in ast.walk(node):  # type: ignore[arg-type]
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == method.name \
                and isinstance(n.func.value, ast.Call) and isinstance(n.func.value.func, ast.Name) \
                and n.func.value.func.id == "super":
            return True
    return False


def method_of(scope: Scope | None) -> Scope | None:
    """The method (a def directly in a class) that contains ``scope``."""
    while scope is not None and scope.kind != "module":
        if scope.kind == "function" and scope.parent is not None and scope.parent.kind == "class":
            return scope
        scope = scope.parent
    return None
