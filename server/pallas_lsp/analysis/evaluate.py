"""A small abstract interpreter over the module's facts.

It answers the questions the rules ask of an expression — which JAX API is this,
which local function, which literal — without running anything. Names resolve
through the module's own bindings (imports, assignments, defs with their
decorators applied, parameters), so aliases and rebinding work the way Python
would see them.
"""
from __future__ import annotations

from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Callable, Iterator

import ast
import os

from . import api, classes
from .incremental import Deps
from .module import ModuleIndex
from .scopes import Binding, CallSite, DecoratorSite, Scope, dotted_name

Order = tuple[int, int] | None  # (block offset, seq): "as of this point"; None: the final binding


class Value:
    __slots__ = ()


@dataclass(frozen=True)
class Const(Value):
    value: object


@dataclass(frozen=True)
class Ext(Value):
    """An external (imported) name, canonicalised: ``jax.experimental.pallas.pallas_call``."""

    name: str


@dataclass(eq=False)
class FuncVal(Value):
    scope: Scope  # a def or lambda of this module


@dataclass(eq=False)
class ClassVal(Value):
    name: str
    scope: Scope | None = None  # the class scope (its first block), for its module


@dataclass(eq=False)
class ParamVal(Value):
    scope: Scope
    name: str


@dataclass(eq=False)
class TupleVal(Value):
    items: tuple[tuple[ast.expr, Scope, Order], ...]
    frames: "Frames" = ()  # what the items' parameters hold (see Frame)


@dataclass(eq=False)
class CallVal(Value):
    """The result of calling ``func`` at ``site`` (an API call, a factory call...)."""

    func: Value
    site: CallSite
    order: Order = None
    # What the parameters the call's arguments mention hold, where the analysis followed a
    # call into the function the site is in (a helper's ``pl.BlockSpec(memory_space=space)``).
    frames: "Frames" = ()


@dataclass(eq=False)
class PartialVal(Value):
    """``functools.partial(func, *args, **kwargs)``."""

    func: Value
    site: CallSite


@dataclass(eq=False)
class Decorated(Value):
    """A def with a decorator applied: ``inner`` is the value below ``decorator``."""

    inner: Value
    decorator: Value
    site: DecoratorSite


@dataclass(eq=False)
class ModVal(Value):
    """A workspace module (``import pkg.helpers as h``)."""

    path: str


@dataclass(eq=False)
class Unknown(Value):
    reason: str = ""


@dataclass(eq=False)
class Frame:
    """One run of a local function as the analysis followed it: which call filled its
    parameters (``invocation``; None when an API calls it, as ``run_scoped`` does its body), or,
    for a decorator, the function it decorates (``applied_to``, its first parameter). A
    parameter's argument is read in the frames of the caller (``caller``), its default in the
    frames of the functions the def is nested in (``closure``)."""

    target: Scope
    invocation: "Invocation | None"
    caller: "Frames" = ()
    closure: "Frames" = ()
    applied_to: Value | None = None


# The frames code is read in, innermost function first, then the functions it is nested in.
Frames = tuple[Frame, ...]


def closure_of(target: Scope, frames: Frames) -> Frames:
    """The frames of the functions ``target`` is nested in (its closure's parameters)."""
    ancestors: set[int] = set()
    s = target.parent
    while s is not None:
        ancestors.add(id(s))
        s = s.parent
    return tuple(f for f in frames if id(f.target) in ancestors)


UNKNOWN = Unknown()
_NO = object()
_BUILTIN_CONSTS = {"True": True, "False": False, "None": None}
_MAX_DEPTH = 40


@dataclass(eq=False)
class ArgBinding:
    """Where a parameter's value comes from at one call."""

    node: ast.expr | None
    scope: Scope | None
    order: Order
    traced: bool = False  # passed through jax.jit and not static
    default: bool = False  # not passed: the parameter's default


@dataclass(eq=False)
class Invocation:
    """A place where a local function is called."""

    site: CallSite
    target: Scope
    how: str  # "direct" | "jit" | "partial" | "run_state" | "passed"
    # partial-bound arguments: (keyword or None, value, scope, order)
    prefix: list[tuple[str | None, ast.expr, Scope, Order]] = field(default_factory=list)
    static: tuple[set[int], set[str]] | None = None  # jit static_argnums / static_argnames


class Evaluator:
    def __init__(self, index: ModuleIndex, program: object = None) -> None:
        self.index = index
        self.program = program  # the workspace (analysis.program.Program), when following imports
        # What the current computation reads (blocks, module-level names), for results kept
        # across edits (see incremental.py); None: not recorded.
        self.deps: Deps | None = None
        self.tracking = False  # results are kept across edits: memoised facts keep their records
        self._def_values: dict[int, tuple[Value, Deps | None, frozenset[str]]] = {}
        self._calls_by_name: dict[str, list[CallSite]] | None = None
        self._mentions_idx: _MergedMentions | None = None
        self._callers: dict[int, tuple[list[Invocation], Deps | None, frozenset[str]]] = {}
        self._star_names: dict[str, Binding | None] = {}  # names star imports of workspace modules give
        self._star_deps: dict[str, frozenset[str]] = {}  # what each of those consulted
        # The frames parameters are read in (see Frame, within): () reads them as parameters.
        self.frames: Frames = ()
        # One depth for the whole workspace: chains through other modules count too.
        self._depth_box: list[int] = program.depth if program is not None else [0]  # type: ignore[attr-defined]
        # Facts of one launch that several rules ask for (its specs, blocks, Ref accesses), kept for
        # one analysis pass (Engine._collect sets and clears it); None: not kept.
        self.launch_facts: dict | None = None

    # --- other modules ------------------------------------------------------------------
    def other(self, scope: Scope | None) -> "Evaluator":
        """The evaluator of the module a scope belongs to."""
        if self.program is None or scope is None or scope.block is None:
            return self
        path = scope.block.path  # type: ignore[attr-defined]
        if path == self.index.path:
            return self
        ev = self.program.evaluator(path)  # type: ignore[attr-defined]
        return ev if ev is not None else self

    @contextmanager
    def within(self, frames: Frames) -> Iterator[None]:
        """Read parameters as the given frames fill them (a helper's parameter as the call the
        analysis followed into it passes it)."""
        outer = self.frames
        self.frames = frames
        try:
            yield
        finally:
            self.frames = outer

    def argument_for(self, scope: Scope, name: str) -> tuple[ast.expr, Scope, Order, Frames] | None:
        """(node, scope, order, frames to read it in) of what the current frames pass for
        parameter ``name`` of ``scope``, or None (no frame of that function, or it cannot tell)."""
        for f in self.frames:
            if f.target is not scope:
                continue
            if f.invocation is None:
                return None
            b = self.bind_param(f.invocation, name)
            if b is None or b.node is None or b.scope is None:
                return None
            return b.node, b.scope, b.order, (f.closure if b.default else f.caller)
        return None

    def _bound_param(self, scope: Scope, name: str) -> Value | None:
        for f in self.frames:
            if f.target is scope and f.applied_to is not None and scope.params and scope.params[0][0] == name:
                return f.applied_to  # (a decorator's first parameter: the decorated function)
        got = self.argument_for(scope, name)
        if got is None:
            return None
        node, s, order, frames = got
        with self.within(frames):
            return self.value(node, s, order)

    # --- ordering -------------------------------------------------------------------
    def order_of(self, item: CallSite | DecoratorSite | Binding) -> Order:
        scope = item.scope
        return (self.index.offset_of(scope), item.seq) if scope is not None else None

    def _before(self, b: Binding, order: Order) -> bool:
        if order is None or b.scope is None:
            return True
        return (self.index.offset_of(b.scope), b.seq) < order

    # --- name lookup ------------------------------------------------------------------
    def lookup(self, name: str, scope: Scope, order: Order = None) -> Binding | None:
        if (o := self.other(scope)) is not self:
            return o.lookup(name, scope, order)
        if self.deps is not None:
            self.deps.bound.add(name)
            self.deps.read(scope)
        s: Scope | None = scope
        first = True
        while s is not None:
            if s.kind == "module":
                bs = self.index.scope.bindings.get(name)
                if not bs and self.program is not None and "*" in self.index.scope.bindings:
                    return self._workspace_import_star(name)  # `from kernels import *`
                return self._pick(bs, order if first else None) if bs else None
            if s.kind == "class" and not first:
                s = s.parent
                continue
            bs = s.bindings.get(name)
            if bs:
                b = self._pick(bs, order if first else None)
                if b is not None:
                    return b
                if s.kind == "function":
                    return None  # bound later in the same function: not yet assigned
            first = False
            s = s.parent
        return None

    def _pick(self, bs: list[Binding], order: Order) -> Binding | None:
        if len(bs) > 1 and any(b.kind == "import" for b in bs):
            # An optional import (``try: from m import x / except: x = None``, or the same under
            # an ``if`` on the platform): what the name is where it is used is the import.
            bs = [b for b in bs if not (b.kind == "assign" and isinstance(b.node, ast.Constant)
                                        and b.node.value is None)] or bs
        if order is None:
            # What a name statically is: its `if TYPE_CHECKING:` binding when it has one
            # (modules that monkey-patch an alias at run time keep the real one there).
            for b in reversed(bs):
                if b.type_checking:
                    return b
            return bs[-1]
        before = [b for b in bs if self._before(b, order)]
        for b in reversed(before):
            if b.type_checking:
                return b
        return before[-1] if before else None

    # --- values -----------------------------------------------------------------------
    def value(self, node: ast.AST | None, scope: Scope, order: Order = None) -> Value:
        if node is None:
            return UNKNOWN
        if (o := self.other(scope)) is not self:
            with o.within(self.frames):
                return o.value(node, scope, order)
        if self.deps is not None:
            self.deps.read(scope)
        box = self._depth_box
        if box[0] > _MAX_DEPTH:
            return Unknown("too deep: not followed")
        box[0] += 1
        try:
            return self._value(node, scope, order)
        finally:
            box[0] -= 1

    def _value(self, node: ast.AST, scope: Scope, order: Order) -> Value:
        t = type(node)
        if t is ast.Name:
            b = self.lookup(node.id, scope, order)  # type: ignore[attr-defined]
            if b is None:
                return Ext(f"builtins.{node.id}")  # type: ignore[attr-defined]
            return self.binding_value(b, order)
        if t is ast.Attribute:
            base = self.value(node.value, scope, order)  # type: ignore[attr-defined]
            attr = node.attr  # type: ignore[attr-defined]
            if isinstance(base, Ext):
                return Ext(api.canonical(f"{base.name}.{attr}"))
            if isinstance(base, ModVal):
                return self._workspace_import_attribute(base, attr)
            if isinstance(base, ClassVal):
                member = self.class_member(base.name, attr)
                if member is not None:
                    return self.binding_value(member)
            if isinstance(base, ParamVal) and base.name in ("self", "cls"):
                cls = self.enclosing_class(base.scope)
                if cls is not None:
                    member = self.class_member(cls.name, attr)
                    if member is None and self.program is not None:
                        member = self._inherited_member(cls, attr)  # a base class in another module
                    if member is not None and member.kind in ("def", "class"):
                        return self.binding_value(member)
            if isinstance(base, CallVal) and isinstance(base.func, ClassVal) and base.func.scope is not None:
                # A method of an instance made here (``Runner(...).run``, ``r = Runner(); r.run``):
                # its class's def, as for ``self.run`` (an attribute the instance sets is not one).
                cls = base.func.scope
                owner = self.other(cls)
                member = owner.class_member(cls.name, attr)
                if member is None and owner.program is not None:
                    member = owner._inherited_member(cls, attr)
                if member is not None and member.kind == "def":
                    return owner.binding_value(member)
            return Unknown(f"attribute {attr}")
        if t is ast.Call:
            return self._call_value(node, scope, order)  # type: ignore[arg-type]
        if t is ast.Constant:
            v = node.value  # type: ignore[attr-defined]
            return Const(v) if isinstance(v, (int, float, str, bool, type(None), bytes)) else UNKNOWN
        if t in (ast.Tuple, ast.List):
            if any(isinstance(e, ast.Starred) for e in node.elts):  # type: ignore[attr-defined]
                return Unknown("starred")
            return TupleVal(tuple((e, scope, order) for e in node.elts), self.frames)  # type: ignore[attr-defined]
        if t is ast.Lambda:
            sc = self._scope_of_node(node, scope)
            return FuncVal(sc) if sc is not None else UNKNOWN
        if t is ast.UnaryOp:
            op = node.op  # type: ignore[attr-defined]
            c = self.const(node.operand, scope, order)  # type: ignore[attr-defined]
            if c is _NO:
                return UNKNOWN
            if isinstance(op, ast.Not):
                return Const(not c)
            if isinstance(op, ast.USub) and isinstance(c, (int, float)) and not isinstance(c, bool):
                return Const(-c)
            return UNKNOWN
        if t is ast.BoolOp:
            values = node.values  # type: ignore[attr-defined]
            is_and = isinstance(node.op, ast.And)  # type: ignore[attr-defined]
            for i, operand in enumerate(values):
                if i == len(values) - 1:
                    return self.value(operand, scope, order)
                c = self.const(operand, scope, order)
                if c is _NO:
                    return UNKNOWN
                if (not c) if is_and else bool(c):
                    return Const(c)
            return UNKNOWN
        return Unknown(t.__name__)

    def _call_value(self, node: ast.Call, scope: Scope, order: Order) -> Value:
        site = self.site_of(node, scope)
        func = self.value(node.func, scope, order)
        if site is None:
            return Unknown("call")
        if isinstance(func, Ext) and func.name == api.PARTIAL and node.args and \
                not isinstance(node.args[0], ast.Starred):
            return PartialVal(self.value(node.args[0], scope, order), site)
        return CallVal(func, site, order, self.frames)

    def enclosing_class(self, method: Scope) -> Scope | None:
        """The class a method is defined in (``self``'s class)."""
        if method.kind == "function" and method.parent is not None and method.parent.kind == "class":
            return method.parent
        return None

    def class_member(self, class_name: str, attr: str, depth: int = 0) -> Binding | None:
        """A member of a module class or of its base classes in this module."""
        if self.deps is not None:
            self.deps.bound.add(class_name)
            self.deps.bound.add(attr)
        info = self.index.classes.get(class_name)
        if info is None or depth > 8:
            return None
        if attr in info.members:
            return info.members[attr][-1]
        for sc in info.scopes:
            node = sc.node
            for base in getattr(node, "bases", ()):
                if isinstance(base, ast.Name) and base.id != class_name:
                    found = self.class_member(base.id, attr, depth + 1)
                    if found is not None:
                        return found
        return None

    def _inherited_member(self, cls: Scope, attr: str) -> Binding | None:
        """``attr`` of a class through its bases across the workspace (``class T(ptu.PallasTest)``
        with ``pallas_call`` defined in the imported module)."""
        ref = classes.class_of(self, cls)
        found = classes.member(ref, attr) if ref is not None else None
        return found[1] if found is not None else None

    @staticmethod
    def class_scope(value: Value | None) -> Scope | None:
        """The class scope a value is, if it is a class of the workspace (asked by :mod:`.classes`,
        which works on the evaluator it is handed and does not import this module)."""
        return value.scope if isinstance(value, ClassVal) else None

    def site_of(self, node: ast.Call, scope: Scope) -> CallSite | None:
        sites = getattr(scope.block, "sites", None)
        return sites.get(id(node)) if sites else None

    def binding_value(self, b: Binding, order: Order = None) -> Value:
        scope = b.scope
        assert scope is not None
        if (o := self.other(scope)) is not self:
            with o.within(self.frames):
                return o.binding_value(b, order)
        if self.deps is not None:
            self.deps.read(scope)
        if b.kind == "import":
            if self.program is not None and b.stmt is not None:
                v = self._workspace_import(b)
                if v is not None:
                    return v
            return Ext(api.canonical(b.qualified)) if not b.qualified.startswith(".") else Ext(b.qualified)
        if b.kind == "param":
            bound = self._bound_param(scope, b.name) if self.frames else None
            return bound if bound is not None else ParamVal(scope, b.name)
        if b.kind in ("def", "class"):
            target = self._scope_of_node(b.node, scope)
            if target is None:
                return UNKNOWN
            return self.def_value(target) if b.kind == "def" else ClassVal(target.name, target)
        bo = self.order_of(b)
        if b.kind == "assign":
            return self.value(b.node, scope, bo)
        if b.kind == "unpack":
            v = self.value(b.node, scope, bo)
            if isinstance(v, TupleVal) and 0 <= b.index < len(v.items):
                n, s, o = v.items[b.index]
                return self.value(n, s, o)
            return Unknown("unpacked")
        return Unknown(b.kind)

    def _workspace_import(self, b: Binding) -> Value | None:
        """An import of a workspace module or of a name defined in one (resolved by jedi)."""
        box = self._depth_box
        if box[0] > _MAX_DEPTH // 2:
            return Unknown("import chain not followed (too deep)")
        box[0] += 1
        try:
            return self._workspace_import_at(b)
        finally:
            box[0] -= 1

    def _workspace_import_attribute(self, base: ModVal, attr: str) -> Value:
        """``module.attr`` for a workspace module: what the module binds, else what a star
        import gives it or the package's submodule of that name."""
        ev = self.program.evaluator(base.path) if self.program is not None else None  # type: ignore[attr-defined]
        if ev is None:
            return Unknown(f"attribute {attr}")
        bs = ev.index.scope.bindings.get(attr)
        if bs:
            return ev.binding_value(ev._pick(bs, None))
        box = self._depth_box
        if box[0] > _MAX_DEPTH // 2:
            return Unknown("import chain not followed (too deep)")
        box[0] += 1
        try:
            r = self.program.attribute(base.path, attr)  # type: ignore[attr-defined]
            v = self._workspace_import_value(r) if r is not None else None
        finally:
            box[0] -= 1
        return v if v is not None else Unknown(f"attribute {attr}")

    def _workspace_importers(self, target: Scope) -> dict[str, set[str]]:
        """The workspace modules that may call ``target`` (a function of this module), each with
        the names it may reach it by besides its own imports: the modules importing this one,
        and those importing a package whose ``__init__`` re-exports it (``import kernels`` then
        ``kernels.square(...)``; ``as`` names and star imports of the __init__ included), up to
        three package levels."""
        program = self.program
        out: dict[str, set[str]] = {}
        todo: list[tuple[str, set[str], int]] = [(self.index.path, {target.name}, 0)]  # type: ignore[list-item]
        while todo:
            path, visible, level = todo.pop()
            for imp in program.importers_of(path, depth=1):  # type: ignore[attr-defined]
                if imp == self.index.path:
                    continue
                known = imp in out
                out.setdefault(imp, set()).update(visible)
                if known or level >= 3 or os.path.basename(imp) != "__init__.py":
                    continue
                ev = program.evaluator(imp)  # type: ignore[attr-defined]
                if ev is None:
                    continue
                names = set()
                for name in visible | self._workspace_import_names(ev, target):
                    r = program.attribute(imp, name)  # type: ignore[attr-defined]
                    if r is not None and r.path == self.index.path and r.name == target.name:
                        names.add(name)
                if names:
                    out[imp].update(names)  # (what the __init__ binds it to: a caller may use those)
                    todo.append((imp, names, level + 1))
        return out

    def _workspace_importers_changed(self) -> None:
        """Another workspace module changed (the program forgot it): the callers found in the
        modules that import this one may differ, and so may what a star import gives."""
        self._callers.clear()
        self._star_names.clear()
        self._star_deps.clear()

    def _workspace_import_star(self, name: str) -> Binding | None:
        """The binding a ``from <workspace module> import *`` of this module gives ``name``
        (an import of that name from there), or None when no star import exports it."""
        if name in self._star_names:
            self._consulted_again(self._star_deps.get(name, frozenset()))  # (the star-imported modules)
            return self._star_names[name]
        with self._consulting() as consulted:
            got = self._workspace_import_star_now(name)
        self._star_deps[name] = frozenset(consulted)
        self._star_names[name] = got
        return got

    def _workspace_import_star_now(self, name: str) -> Binding | None:
        got = None
        for star in reversed(self.index.scope.bindings.get("*", [])):
            stmt = star.stmt
            if isinstance(stmt, ast.ImportFrom) and \
                    self.program.star_exports(self.index.path, stmt, name):  # type: ignore[attr-defined]
                module = "." * (stmt.level or 0) + (stmt.module or "")
                got = Binding(name, "import", None, stmt, star.seq, qualified=f"{module}.{name}",
                              scope=star.scope)
                break
        return got

    def _workspace_import_at(self, b: Binding) -> Value | None:
        r = self.program.resolve_import(self.index.path, b.stmt, b.name, b.scope)  # type: ignore[attr-defined]
        if r is None:
            return None
        return self._workspace_import_value(r)

    def _workspace_import_value(self, r) -> Value | None:
        """The value of a workspace definition found by import resolution."""
        if r.kind == "module":
            return ModVal(r.path)
        ev = self.program.evaluator(r.path)  # type: ignore[attr-defined]
        if ev is None:
            return None
        # The module-level binding of that name on that line (a def, a class, an assignment, or
        # an import that re-exports it).
        bs = ev.index.scope.bindings.get(r.name, [])
        if r.kind == "import":
            imp = next((c for c in reversed(bs) if c.kind == "import"), None)
            return ev.binding_value(imp) if imp is not None else None
        for cand in reversed(bs):
            if cand.kind in ("def", "class") and cand.node is not None and \
                    ev.index.line_of(cand.node, cand.scope) == r.line:
                return ev.binding_value(cand)
        for cand in reversed(bs):
            if cand.stmt is not None and ev.index.line_of(cand.stmt, cand.scope) == r.line:
                return ev.binding_value(cand)
        return ev.binding_value(bs[-1]) if bs else Unknown("import target not found")

    def _workspace_import_names(self, importer: "Evaluator", target: Scope) -> set[str]:
        """Names an importing module binds to a function of this module: an import of that
        name, or of another name that lands on it (``from pkg import sq`` where the package's
        ``__init__`` does ``from .square import square as sq``)."""
        names: set[str] = set()
        for name, bs in importer.index.scope.bindings.items():
            for b in bs:
                if b.kind != "import" or b.stmt is None:
                    continue
                if b.qualified.rsplit(".", 1)[-1] == target.name:
                    names.add(name)
                    break
                r = self.program.resolve_import(importer.index.path, b.stmt, name, b.scope)  # type: ignore[attr-defined]
                if r is not None and r.path == self.index.path and r.name == target.name:
                    names.add(name)
                    break
        return names

    def def_value(self, target: Scope) -> Value:
        """A def's value: the function with its decorators applied, innermost first."""
        if (o := self.other(target)) is not self:
            return o.def_value(target)
        # (FuncVal while computing: guards recursion through the decorators.)
        return self._memoised(self._def_values, target, FuncVal(target), lambda: self._def_value(target))

    def _def_value(self, target: Scope) -> Value:
        if self.deps is not None:
            self.deps.read(target)
        v: Value = FuncVal(target)
        for d in sorted(self._decorators_of(target), key=lambda d: -d.index):
            dec = self.value(d.node, d.scope, self.order_of(d))
            v = Decorated(v, dec, d)
        return v

    def _memoised(self, cache: dict, target: Scope, pending: object, compute: Callable[[], object]):
        """A fact computed once per analysis, with what it read: a later hit replays that
        into the computation that asks (see incremental.py). ``pending`` answers a recursive
        ask while the fact is being computed."""
        hit = cache.get(id(target))
        if hit is not None:
            if self.deps is not None and hit[1] is not None:
                self.deps.merge(hit[1])
            self._consulted_again(hit[2])
            return hit[0]
        cache[id(target)] = (pending, None, frozenset())
        # (Facts kept for every asker are read with no frames: parameters as parameters.)
        with self._recording() as sub, self._consulting() as consulted, self.within(()):
            v = compute()
        cache[id(target)] = (v, sub, frozenset(consulted))
        return v

    def _consulting(self):
        """Record the other workspace modules a memoised computation consults (Program.track),
        so that a later hit counts them as consulted again (``check``'s cache keeps results by
        what they consulted)."""
        return self.program.track() if self.program is not None else nullcontext(set())  # type: ignore[attr-defined]

    def _consulted_again(self, consulted: frozenset[str]) -> None:
        if self.program is not None and consulted:
            self.program.read_again(consulted)  # type: ignore[attr-defined]

    @contextmanager
    def _recording(self) -> Iterator[Deps | None]:
        """Record what a memoised computation reads on its own, so that a later hit can
        replay it into the computation that asks. While results are kept across edits
        (``tracking``) this records even when nobody listens yet: module-wide passes fill the
        caches too, and a launch that hits them later must still inherit what they read."""
        outer = self.deps
        if outer is None and not self.tracking:
            yield None
            return
        sub = Deps()
        outer_index = self.index.deps
        self.deps = self.index.deps = sub
        try:
            yield sub
        finally:
            self.deps = outer
            self.index.deps = outer_index
            if outer is not None:
                outer.merge(sub)

    def _scope_of_node(self, node: ast.AST, scope: Scope) -> Scope | None:
        sc = getattr(scope.block, "scope_of_node", None)
        return sc.get(id(node)) if sc else None

    def _decorators_of(self, target: Scope) -> list[DecoratorSite]:
        parent = target.parent
        sites = parent.decorators if parent is not None else []
        return [d for d in sites if d.target is target]

    # --- constants --------------------------------------------------------------------
    def const(self, node: ast.AST | None, scope: Scope, order: Order = None) -> object:
        """The Python constant an expression surely is, or ``NO``."""
        v = self.value(node, scope, order)
        return v.value if isinstance(v, Const) else _NO


    def guards_hold(self, guards, scope: Scope, order: Order = None) -> bool:
        """False when an enclosing ``if`` is surely not taken (``if False:``, ``if DEBUG:``
        with ``DEBUG = False``)."""
        for test, branch in guards:
            c = self.const(test, scope, order)
            if c is not _NO and bool(c) != branch:
                return False
        return True

    # --- helpers on values ------------------------------------------------------------
    @staticmethod
    def ext_name(v: Value) -> str | None:
        return v.name if isinstance(v, Ext) else None

    def called_api(self, v: Value) -> str | None:
        """For ``CallVal`` of an external API, the API's name."""
        if isinstance(v, CallVal):
            if isinstance(v.func, Ext):
                return v.func.name
            if isinstance(v.func, PartialVal) and isinstance(v.func.func, Ext):
                return v.func.func.name
        return None

    def kwarg(self, site: CallSite, name: str) -> ast.expr | None:
        for k in site.node.keywords:
            if k.arg == name:
                return k.value
        return None

    def posarg(self, site: CallSite, i: int) -> ast.expr | None:
        pos = site.positional
        return pos[i] if 0 <= i < len(pos) else None

    def function_of(self, v: Value) -> Scope | None:
        """The local def/lambda a callable value runs, seeing through partials and
        transparent decorators."""
        seen = 0
        while seen < 10:
            seen += 1
            if isinstance(v, FuncVal):
                return v.scope
            if isinstance(v, PartialVal):
                v = v.func
            elif isinstance(v, Decorated):
                v = v.inner
            elif isinstance(v, CallVal) and self.called_api(v) == api.JIT and v.site.positional:
                v = self.value(v.site.positional[0], v.site.scope, self.order_of(v.site))
            else:
                return None
        return None

    def is_api_decorator(self, d: Value) -> bool:
        """Whether a decorator is a JAX/library API (``jax.jit``, ``functools.partial(jax.jit,
        ...)``, ``pl.when(c)``...), which the analysis sees through, not a local function."""
        if isinstance(d, PartialVal):
            d = d.func
        return self.ext_name(d) is not None or self.called_api(d) is not None

    def made_by(self, v: Value, frames: Frames = (), depth: int = 0) -> list[tuple[Scope, Frames]]:
        """The local functions a callable value is, each with the frames of the functions it
        is nested in: a def; what a local factory call returns (``make(2)``: its parameters as
        that call passes them); what a local decorator or decorator factory makes of a def
        (``@scoped(pltpu.VMEM(...), collective_axes="x")``: the wrapper it returns). ``frames``:
        those the value's expressions are read in. API decorators are seen through."""
        if depth > 6:
            return []
        if isinstance(v, FuncVal):
            return [(v.scope, closure_of(v.scope, frames))]
        if isinstance(v, PartialVal):
            return self.made_by(v.func, frames, depth + 1)
        if isinstance(v, CallVal):
            if self.called_api(v) == api.JIT and v.site.positional:
                return self.made_by(self.value(v.site.positional[0], v.site.scope, self.order_of(v.site)),
                                    frames, depth + 1)
            out: list[tuple[Scope, Frames]] = []
            for factory, closure in self.made_by(v.func, frames, depth + 1):
                made = Frame(factory, Invocation(v.site, factory, "direct"), frames, closure)
                out += self._functions_returned(factory, (made,) + closure, depth)
            return out
        if isinstance(v, Decorated):
            if self.is_api_decorator(v.decorator):
                return self.made_by(v.inner, frames, depth + 1)
            out = []
            for deco, closure in self.made_by(v.decorator, frames, depth + 1):
                applied = Frame(deco, None, frames, closure, applied_to=v.inner)
                out += self._functions_returned(deco, (applied,) + closure, depth)
            return out
        return []

    def _functions_returned(self, fn: Scope, frames: Frames, depth: int) -> list[tuple[Scope, Frames]]:
        out: list[tuple[Scope, Frames]] = []
        for r in fn.returns:
            with self.within(frames):
                rv = self.value(r, fn, None)
            out += self.made_by(rv, frames, depth + 1)
        return out

    def returned(self, v: Value, depth: int = 0) -> Value:
        """What a call of a small local helper gives (``spec(pltpu.SMEM)`` where ``def
        spec(space): return pl.BlockSpec(memory_space=space)``): its return expression, read
        with the parameters this call passes (values made there carry those frames). Only a
        helper whose body is assignments and one final return is read; other values as they are."""
        while isinstance(v, CallVal) and depth < 4:
            depth += 1
            fn = self.function_of(v.func) if isinstance(v.func, FuncVal) else None
            if fn is None or not _plain_helper(fn):
                return v
            frame = Frame(fn, Invocation(v.site, fn, "direct"), v.frames, closure_of(fn, v.frames))
            with self.within((frame,) + frame.closure):
                v = self.value(fn.returns[0], fn, None)
        return v

    def call_argument(self, site: CallSite, position: int | None, keyword: str | None
                      ) -> tuple[ast.expr, Scope, Order] | None:
        """(node, scope, order) of the argument passed at ``position`` or as ``keyword=`` to
        the call at ``site``, counting what a ``functools.partial`` the callee is bound
        (``scoped = partial(pl.run_scoped, collective_axes="x")``; ``scoped(body, ...)``)."""
        order = self.order_of(site)
        positional: list[tuple[ast.expr, Scope, Order]] = [(a, site.scope, order) for a in site.positional]
        keywords = {k: (a, site.scope, order) for k, a in site.keywords.items()}
        star = site.has_star
        v = self.value(site.node.func, site.scope, order)
        for _ in range(4):
            if not isinstance(v, PartialVal):
                break
            psite, po = v.site, self.order_of(v.site)
            positional = [(a, psite.scope, po) for a in psite.positional[1:]] + positional
            for k, a in psite.keywords.items():
                keywords.setdefault(k, (a, psite.scope, po))  # (the call's own keywords win)
            star = star or psite.has_star
            v = v.func
        if keyword is not None and keyword in keywords:
            return keywords[keyword]
        if position is not None and not star and 0 <= position < len(positional):
            return positional[position]
        return None

    def functions_of(self, v: Value, depth: int = 0, via: tuple = ()) -> list[Scope]:
        """Every local function a callable value may run: through partials and decorators,
        lists of bodies (MPMD kernels), parameters filled by callers, and factories that
        return a nested def. ``via``: ((function, call site), ...) — a parameter of such a
        function is filled only by that call (one caller's context)."""
        one = self.function_of(v)
        if one is not None:
            return [one]
        if depth > 3:
            return []
        out: list[Scope] = []
        if isinstance(v, TupleVal):
            for n, s, o in v.items:
                out += self.functions_of(self.value(n, s, o), depth + 1, via)
        elif isinstance(v, ParamVal):
            chosen = [site for fn, site in via if fn is v.scope]
            for inv in self.callers_of(v.scope):
                if chosen and inv.site is not chosen[0]:
                    continue
                b = self.bind_param(inv, v.name)
                if b is not None and b.node is not None and b.scope is not None:
                    out += self.functions_of(self.value(b.node, b.scope, b.order), depth + 1, via)
        elif isinstance(v, CallVal):
            factory = self.function_of(v.func)
            if factory is not None:
                for r in factory.returns:
                    out += self.functions_of(self.value(r, factory, None), depth + 1, via)
        seen: set[int] = set()
        return [s for s in out if not (id(s) in seen or seen.add(id(s)))]

    # --- call graph ---------------------------------------------------------------------
    def calls_named(self, name: str) -> list[CallSite]:
        """Calls of ``name`` (or passing ``name`` along) anywhere in the module, block by block."""
        if self.deps is not None:
            self.deps.used.add(name)
        if self._calls_by_name is None:
            self._calls_by_name = {}
        got = self._calls_by_name.get(name)
        if got is None:
            got = []
            for _, bp in self.index.parses:
                if bp.error is None:
                    got.extend(bp.calls_named(name))
            self._calls_by_name[name] = got
        return got

    def _mention_index(self) -> "_MergedMentions":
        """name -> the names bound by assignments whose value mentions it."""
        if self._mentions_idx is None:
            self._mentions_idx = _MergedMentions([bp for _, bp in self.index.parses if bp.error is None])
        return self._mentions_idx

    def aliases_of(self, target: Scope) -> set[str]:
        """Names the function may be called by in this module: its own, and names bound to
        an expression that mentions it (``g = jax.jit(f)``, ``p = partial(f, 2)``)."""
        if target.kind == "lambda":
            return set()
        if _inside_function(target):  # (see local_callers)
            return {target.name} | _aliases_in(_block_mention_index(target.block), {target.name})
        return {target.name} | self.aliases_of_names({target.name})

    def callers_of(self, target: Scope) -> list[Invocation]:
        """Where a function is called: in its own module, and (in a workspace) in the modules
        that import it."""
        if (o := self.other(target)) is not self:
            return o.callers_of(target)
        return self._memoised(self._callers, target, [], lambda: self._callers_of(target))

    def _callers_of(self, target: Scope) -> list[Invocation]:
        if self.deps is not None:
            self.deps.read(target)
        out = self.local_callers(target, self.aliases_of(target))
        if self.program is not None and self.index.path and target.kind == "function":
            importers = self._workspace_importers(target)
            # Every way to reach the function names it, or a name a package re-exports it as, in
            # the text (its import, an attribute, an alias's binding): a module that names none
            # of them cannot call it, and is not indexed.
            words = {target.name}.union(*importers.values())
            for path, reexported in importers.items():
                if not self.program.mentions(path, words):  # type: ignore[attr-defined]
                    continue
                ev = self.program.evaluator(path)  # type: ignore[attr-defined]
                if ev is None or ev is self:
                    continue
                names = {target.name} | reexported | self._workspace_import_names(ev, target)
                names |= ev.aliases_of_names(names)
                out += ev.local_callers(target, names)
        return out

    def local_callers(self, target: Scope, names: set[str]) -> list[Invocation]:
        out: list[Invocation] = []
        seen: set[int] = set()
        # A def nested in a function is visible only inside its own block: calls elsewhere
        # that use the same name mean another function (no need to scan, or depend on, them).
        nested = _inside_function(target)
        for name in names:
            for cs in (target.block.calls_named(name) if nested else self.calls_named(name)):  # type: ignore[union-attr]
                if id(cs) in seen:
                    continue
                seen.add(id(cs))
                out.extend(self._invocations_at(cs, target))
        return out

    def aliases_of_names(self, names: set[str], rounds: int = 3) -> set[str]:
        if self.deps is not None:
            self.deps.used.update(names)
        out = _aliases_in(self._mention_index(), names, rounds)
        if self.deps is not None:
            self.deps.used.update(out)
        return out

    def _invocations_at(self, cs: CallSite, target: Scope) -> Iterator[Invocation]:
        order = self.order_of(cs)
        callee = self.value(cs.node.func, cs.scope, order)
        inv = self._as_invocation(callee, cs, target, order)
        if inv is not None:
            yield inv
            return
        # The function passed as an argument (to lax.fori_loop, jax.jit(f)(...), run_scoped...).
        for a in cs.all_args:
            v = self.value(a, cs.scope, order)
            if self.function_of(v) is target:
                yield Invocation(cs, target, "passed")
                return

    def _as_invocation(self, callee: Value, cs: CallSite, target: Scope, order: Order) -> Invocation | None:
        prefix: list[tuple[str | None, ast.expr, Scope, Order]] = []
        how = "direct"
        static = None
        v = callee
        for _ in range(10):
            if isinstance(v, FuncVal):
                if v.scope is not target:
                    return None
                return Invocation(cs, target, how, prefix, static)
            if isinstance(v, PartialVal):
                psite = v.site
                po = self.order_of(psite)
                prefix = [(None, a, psite.scope, po) for a in psite.positional[1:]] + \
                    [(k, a, psite.scope, po) for k, a in psite.keywords.items()] + prefix
                how = "partial" if how == "direct" else how
                v = v.func
            elif isinstance(v, Decorated):
                dname = self.ext_name(v.decorator) or self.called_api(v.decorator)
                if isinstance(v.decorator, PartialVal) and isinstance(v.decorator.func, Ext):
                    dname = v.decorator.func.name
                if dname == api.JIT:
                    how, static = "jit", self.jit_static(v.decorator)
                elif dname == api.RUN_STATE:
                    how = "run_state"
                v = v.inner
            elif isinstance(v, CallVal) and self.called_api(v) == api.JIT and v.site.positional:
                how, static = "jit", self.jit_static(v)
                v = self.value(v.site.positional[0], v.site.scope, self.order_of(v.site))
            else:
                return None
        return None

    def jit_static(self, jit_value: Value) -> tuple[set[int], set[str]]:
        """static_argnums / static_argnames of a ``jax.jit`` call, partial or decorator."""
        nums: set[int] = set()
        names: set[str] = set()
        sites: list[CallSite] = []
        if isinstance(jit_value, CallVal):
            sites.append(jit_value.site)
        elif isinstance(jit_value, PartialVal):
            sites.append(jit_value.site)
        for site in sites:
            order = self.order_of(site)
            for key, dest in (("static_argnums", nums), ("static_argnames", names)):
                node = self.kwarg(site, key)
                if node is None:
                    continue
                c = self.value(node, site.scope, order)
                items = [c] if isinstance(c, Const) else []
                if isinstance(c, TupleVal):
                    items = [self.value(n, s, o) for n, s, o in c.items]
                for it in items:
                    if isinstance(it, Const) and isinstance(it.value, (int, str)) and not isinstance(it.value, bool):
                        dest.add(it.value)  # type: ignore[arg-type]
        return nums, names

    def is_jitted(self, target: Scope) -> tuple[bool, tuple[set[int], set[str]]]:
        """Whether a def is itself decorated with jax.jit (its parameters are traced)."""
        v = self.def_value(target)
        while isinstance(v, Decorated):
            d = v.decorator
            name = self.ext_name(d) or self.called_api(d)
            if isinstance(d, PartialVal) and isinstance(d.func, Ext):
                name = d.func.name
            if name == api.JIT:
                return True, self.jit_static(d)
            v = v.inner
        return False, (set(), set())

    def bind_param(self, inv: Invocation, name: str) -> ArgBinding | None:
        """Which argument at this invocation fills parameter ``name`` (None: cannot tell)."""
        target = inv.target
        if inv.how == "passed":
            return None
        params = target.params
        names = [p[0] for p in params]
        if name not in names:
            return None
        pidx = names.index(name)
        pname, pdefault, pkind = params[pidx]
        is_method = (target.parent is not None and target.parent.kind == "class" and names
                     and names[0] in ("self", "cls"))
        positional: list[tuple[ast.expr, Scope, Order]] = [(a, s, o) for k, a, s, o in inv.prefix if k is None]
        keywords = {k: (a, s, o) for k, a, s, o in inv.prefix if k is not None}
        order = self.order_of(inv.site)
        star = inv.site.has_star
        positional += [(a, inv.site.scope, order) for a in inv.site.positional]
        keywords.update({k: (a, inv.site.scope, order) for k, a in inv.site.keywords.items()})
        traced = False
        static_nums, static_names = inv.static or (set(), set())
        if inv.how == "jit":
            traced = not (pidx in static_nums or name in static_names)
        if name in keywords:
            a, s, o = keywords[name]
            return ArgBinding(a, s, o, traced=traced)
        offset = 1 if is_method else 0
        if pkind in ("posonly", "normal") and 0 <= pidx - offset < len(positional):
            a, s, o = positional[pidx - offset]
            return ArgBinding(a, s, o, traced=traced)
        if star:
            return None
        if inv.how == "run_state":
            return None
        return ArgBinding(pdefault, target.parent, None, default=True) if pdefault is not None else None


def _plain_helper(fn: Scope) -> bool:
    """A def whose body is assignments (and a docstring) then one return: what it returns can
    be read without running it."""
    node = fn.node
    if not isinstance(node, ast.FunctionDef) or not node.body or len(fn.returns) != 1:
        return False
    *rest, last = node.body
    if not isinstance(last, ast.Return) or last.value is not fn.returns[0]:
        return False
    return all(isinstance(st, (ast.Assign, ast.AnnAssign)) or
               (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant)) for st in rest)


def _mention_index_of(scopes: Iterator[Scope]) -> dict[str, set[str]]:
    idx: dict[str, set[str]] = {}
    for s in scopes:
        for bname, bs in s.bindings.items():
            for b in bs:
                if b.kind == "assign" and b.node is not None:
                    for n in _names_of(b.node):
                        if n != bname:
                            idx.setdefault(n, set()).add(bname)
    return idx


class _MergedMentions:
    """The mention indices of a module's blocks, read as one."""

    def __init__(self, parses: list) -> None:
        self.parses = parses
        self._got: dict[str, set[str]] = {}

    def get(self, name: str, default: set[str] | None = None) -> set[str]:
        got = self._got.get(name)
        if got is None:
            got = set()
            for bp in self.parses:
                hit = _block_mention_index(bp).get(name)
                if hit:
                    got |= hit
            self._got[name] = got
        return got


def _block_mention_index(bp) -> dict[str, set[str]]:
    return bp.fact("mention_index", lambda bp: _mention_index_of(bp.scopes()))


def _aliases_in(idx: dict[str, set[str]], names: set[str], rounds: int = 3) -> set[str]:
    out: set[str] = set()
    frontier = set(names)
    for _ in range(rounds):
        new: set[str] = set()
        for n in frontier:
            new |= idx.get(n, set())
        new -= out | names
        if not new:
            break
        out |= new
        frontier = new
    return out


def _inside_function(target: Scope) -> bool:
    s = target.parent
    while s is not None:
        if s.kind in ("function", "lambda"):
            return s.block is target.block and target.block is not None
        s = s.parent
    return False


def _names_of(node: ast.AST) -> set[str]:
    """The plain names an expression mentions through calls, attributes and tuples."""
    out: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            stack.append(n.value)
        elif isinstance(n, ast.Call):
            stack.append(n.func)
            stack.extend(a.value if isinstance(a, ast.Starred) else a for a in n.args)
            stack.extend(k.value for k in n.keywords)
        elif isinstance(n, (ast.Tuple, ast.List)):
            stack.extend(n.elts)
    return out


__all__ = [
    "ArgBinding", "CallVal", "ClassVal", "Const", "Decorated", "Evaluator", "Ext", "Frame", "Frames", "FuncVal",
    "Invocation", "ModVal", "closure_of",
    "ParamVal", "PartialVal", "TupleVal", "Unknown", "UNKNOWN", "Value", "dotted_name",
]


def launch_fact(fn):
    """``fn(ev, launch, *rest)`` computed once per analysis pass, launch, recording and
    arguments: the rules of one launch share its specs, blocks and accesses. Only at the top
    level (no frames) and while the engine keeps facts; each entry keeps the objects it was
    asked with (an id reused by a later object never answers) and the dependency record it
    was read under (a fact read under another record is read again, so each record sees it)."""
    import functools

    name = fn.__qualname__

    @functools.wraps(fn)
    def wrapper(ev: "Evaluator", launch, *rest):
        facts = ev.launch_facts
        if facts is None or ev.frames:
            return fn(ev, launch, *rest)
        key = (name, id(launch), id(ev.deps), *map(id, rest))
        got = facts.get(key)
        if got is not None and got[0] is launch and got[1] is ev.deps and all(a is b for a, b in zip(got[2], rest)):
            return got[3]
        value = fn(ev, launch, *rest)
        facts[key] = (launch, ev.deps, rest, value)
        return value

    return wrapper

