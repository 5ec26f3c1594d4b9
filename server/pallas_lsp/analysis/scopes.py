"""Per-block facts: scopes, bindings, call sites, decorators, ``with`` blocks.

One libcst pass over a block builds this index; it is cached with the block's
parse, so nothing here runs again while the block's text is unchanged. Lines in
these facts are relative to the parsed text; :class:`~.module.ModuleIndex` adds
the block's offset.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import libcst as cst


@dataclass(eq=False, repr=False)
class Binding:
    name: str
    kind: str  # "assign" | "unpack" | "def" | "class" | "import" | "param" | "loop" | "with" | "aug" | "other"
    node: cst.CSTNode | None  # the value expression (assign), the def (def/class), None otherwise
    stmt: cst.CSTNode | None  # the statement that binds
    seq: int  # order within the block
    index: int = -1  # position inside a tuple target, for "unpack"
    qualified: str = ""  # for imports: the qualified name bound
    scope: "Scope | None" = None  # the scope it binds in (set by Scope.bind)


@dataclass(eq=False, repr=False)
class CallSite:
    node: cst.Call
    scope: "Scope"
    guards: tuple[tuple[cst.BaseExpression, bool], ...]  # enclosing if-tests in this scope and the branch taken
    withs: tuple["WithSite", ...]  # enclosing with-blocks in this scope
    seq: int
    use: str = "other"  # "expr" (result dropped), "assign" (bound to names), "other"
    targets: tuple[str, ...] = ()
    # Cheap keys for prefiltering without evaluating anything: the last name of the
    # callee (``pallas_call`` for ``pl.pallas_call(...)`` and for ``pl.core_map(m)(f)``)
    # and the plain names passed as arguments.
    callee_last: str = ""
    arg_names: tuple[str, ...] = ()


@dataclass(eq=False, repr=False)
class DecoratorSite:
    node: cst.Decorator
    scope: "Scope"  # the scope the decorator expression is evaluated in
    target: "Scope"  # the decorated def
    index: int  # 0 = outermost (applied last)
    guards: tuple[tuple[cst.BaseExpression, bool], ...]
    withs: tuple["WithSite", ...]
    seq: int


@dataclass(eq=False, repr=False)
class WithSite:
    node: cst.With
    scope: "Scope"
    guards: tuple[tuple[cst.BaseExpression, bool], ...]
    withs: tuple["WithSite", ...]
    seq: int


@dataclass(eq=False)
class Scope:
    kind: str  # "module" | "function" | "lambda" | "class"
    name: str
    node: cst.CSTNode | None
    parent: "Scope | None"
    block: object = None  # the BlockParse this scope came from (for positions)
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    calls: list[CallSite] = field(default_factory=list)
    decorators: list[DecoratorSite] = field(default_factory=list)
    withs: list[WithSite] = field(default_factory=list)
    children: list["Scope"] = field(default_factory=list)
    loads: dict[str, int] = field(default_factory=dict)
    params: list[tuple[str, cst.BaseExpression | None, str]] = field(default_factory=list)  # name, default, kind
    returns: list[cst.BaseExpression] = field(default_factory=list)
    # For a def: the guards/withs under which the def statement itself runs in its parent.
    def_guards: tuple[tuple[cst.BaseExpression, bool], ...] = ()

    def __repr__(self) -> str:
        return f"<Scope {self.kind} {self.qualname}>"

    @property
    def qualname(self) -> str:
        """``outer.inner`` for nested defs, ``Class.method`` for members."""
        parts = []
        s: Scope | None = self
        while s is not None and s.kind != "module":
            parts.append(s.name)
            s = s.parent
        return ".".join(reversed(parts)) or "<module>"

    def walk(self) -> Iterator["Scope"]:
        yield self
        for c in self.children:
            yield from c.walk()

    def bind(self, b: Binding) -> None:
        b.scope = self
        self.bindings.setdefault(b.name, []).append(b)

    @property
    def function_def(self) -> cst.FunctionDef | None:
        return self.node if isinstance(self.node, cst.FunctionDef) else None


for _cls in (Binding, CallSite, DecoratorSite, WithSite):
    _cls.__repr__ = lambda self: f"<{type(self).__name__} seq={self.seq}>"  # type: ignore[method-assign]


def dotted_name(node: cst.CSTNode) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def _import_module_name(node: cst.CSTNode | None) -> str:
    return dotted_name(node) or "" if node is not None else ""


class _Indexer(cst.CSTVisitor):
    def __init__(self, root: Scope) -> None:
        super().__init__()
        self.scope = root
        self.frames: list[tuple[Scope, list, list]] = []
        self.guards: list[tuple[cst.BaseExpression, bool]] = []
        self.withs: list[WithSite] = []
        self.seq = 0
        self.pending: dict[int, Scope] = {}  # id(def node) -> its scope, between visit and body
        self.use: dict[int, tuple[str, tuple[str, ...]]] = {}
        self.not_loads: set[int] = set()

    def _next(self) -> int:
        self.seq += 1
        return self.seq

    def _push(self, scope: Scope) -> None:
        self.frames.append((self.scope, self.guards, self.withs))
        self.scope, self.guards, self.withs = scope, [], []

    def _pop(self) -> None:
        self.scope, self.guards, self.withs = self.frames.pop()

    # --- scopes -------------------------------------------------------------------
    def _new_scope(self, kind: str, name: str, node: cst.CSTNode) -> Scope:
        s = Scope(kind, name, node, self.scope, self.scope.block, def_guards=tuple(self.guards))
        self.scope.children.append(s)
        self.pending[id(node)] = s
        return s

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        s = self._new_scope("function", node.name.value, node)
        self.not_loads.add(id(node.name))
        self.scope.bind(Binding(node.name.value, "def", node, node, self._next()))
        n = len(node.decorators)
        for i, d in enumerate(node.decorators):
            self.scope.decorators.append(
                DecoratorSite(d, self.scope, s, i if n else 0, tuple(self.guards), tuple(self.withs), self._next()))
        p = node.params
        for kind, group in (("posonly", p.posonly_params), ("normal", p.params), ("kwonly", p.kwonly_params)):
            for prm in group:
                s.params.append((prm.name.value, prm.default, kind))
        if isinstance(p.star_arg, cst.Param):
            s.params.append((p.star_arg.name.value, None, "star"))
        if p.star_kwarg is not None:
            s.params.append((p.star_kwarg.name.value, None, "starstar"))
        for name, _, _ in s.params:
            s.bind(Binding(name, "param", None, node, 0))

    def visit_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self._push(self.pending.pop(id(node)))

    def leave_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self._pop()

    def visit_Param(self, node: cst.Param) -> None:
        self.not_loads.add(id(node.name))

    def visit_Lambda(self, node: cst.Lambda) -> None:
        s = self._new_scope("lambda", "<lambda>", node)
        p = node.params
        for kind, group in (("posonly", p.posonly_params), ("normal", p.params), ("kwonly", p.kwonly_params)):
            for prm in group:
                s.params.append((prm.name.value, prm.default, kind))
        if isinstance(p.star_arg, cst.Param):
            s.params.append((p.star_arg.name.value, None, "star"))
        if p.star_kwarg is not None:
            s.params.append((p.star_kwarg.name.value, None, "starstar"))
        for name, _, _ in s.params:
            s.bind(Binding(name, "param", None, node, 0))

    def visit_Lambda_body(self, node: cst.Lambda) -> None:
        self._push(self.pending.pop(id(node)))
        self.scope.returns.append(node.body)

    def leave_Lambda_body(self, node: cst.Lambda) -> None:
        self._pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._new_scope("class", node.name.value, node)
        self.not_loads.add(id(node.name))
        self.scope.bind(Binding(node.name.value, "class", node, node, self._next()))

    def visit_ClassDef_body(self, node: cst.ClassDef) -> None:
        self._push(self.pending.pop(id(node)))

    def leave_ClassDef_body(self, node: cst.ClassDef) -> None:
        self._pop()

    # --- control flow ---------------------------------------------------------------
    def visit_If_body(self, node: cst.If) -> None:
        self.guards.append((node.test, True))

    def leave_If_body(self, node: cst.If) -> None:
        self.guards.pop()

    def visit_If_orelse(self, node: cst.If) -> None:
        self.guards.append((node.test, False))

    def leave_If_orelse(self, node: cst.If) -> None:
        self.guards.pop()

    def visit_While_body(self, node: cst.While) -> None:
        self.guards.append((node.test, True))

    def leave_While_body(self, node: cst.While) -> None:
        self.guards.pop()

    def visit_With_body(self, node: cst.With) -> None:
        w = WithSite(node, self.scope, tuple(self.guards), tuple(self.withs), self._next())
        self.scope.withs.append(w)
        self.withs.append(w)

    def leave_With_body(self, node: cst.With) -> None:
        self.withs.pop()

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind_target(node.asname.name, "with", None, node)

    def visit_For(self, node: cst.For) -> None:
        self._bind_target(node.target, "loop", None, node)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bind_target(node.target, "loop", None, node)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.scope.returns.append(node.value)

    # --- bindings ---------------------------------------------------------------------
    def _bind_target(self, target: cst.CSTNode, kind: str, value: cst.CSTNode | None, stmt: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            self.not_loads.add(id(target))
            self.scope.bind(Binding(target.value, kind, value, stmt, self._next()))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for i, el in enumerate(target.elements):
                inner = el.value
                if isinstance(inner, cst.Name):
                    self.not_loads.add(id(inner))
                    self.scope.bind(Binding(inner.value, "unpack" if kind == "assign" else kind, value, stmt,
                                            self._next(), index=i))
                else:
                    self._bind_target(inner, "other", None, stmt)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, "other", None, stmt)

    # Targets are bound on leave, after the value's calls, so that in
    # ``kernel = pl.pallas_call(kernel, ...)`` the argument resolves to the earlier def.
    def visit_Assign(self, node: cst.Assign) -> None:
        names = [t.target.value for t in node.targets if isinstance(t.target, cst.Name)]
        for t in node.targets:
            for n in _names_in(t.target):
                self.not_loads.add(id(n))
        if isinstance(node.value, cst.Call):
            self.use[id(node.value)] = ("assign", tuple(names)) if names and len(names) == len(node.targets) else ("other", ())

    def leave_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            self._bind_target(t.target, "assign", node.value, node)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind_target(node.target, "assign" if node.value is not None else "other", node.value, node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        for n in _names_in(node.target):
            self.not_loads.add(id(n))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind_target(node.target, "aug", None, node)
        if isinstance(node.target, cst.Name):
            self.not_loads.discard(id(node.target))  # x += 1 reads x

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.not_loads.add(id(node.target))

    def leave_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind_target(node.target, "assign", node.value, node)

    def visit_Expr(self, node: cst.Expr) -> None:
        if isinstance(node.value, cst.Call):
            self.use[id(node.value)] = ("expr", ())

    def visit_Del(self, node: cst.Del) -> None:
        for n in _names_in(node.target):
            self.not_loads.add(id(n))

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted_name(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local, qual = alias.asname.name.value, full
                self.not_loads.add(id(alias.asname.name))
            else:
                local = full.split(".")[0]
                qual = local
            self.scope.bind(Binding(local, "import", None, node, self._next(), qualified=qual))
        return False  # type: ignore[return-value]

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = "." * len(node.relative) + _import_module_name(node.module)
        if isinstance(node.names, cst.ImportStar):
            self.scope.bind(Binding("*", "import", None, node, self._next(), qualified=module + ".*"))
            return False  # type: ignore[return-value]
        for alias in node.names:
            name = dotted_name(alias.name) or ""
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            sep = "" if module.endswith(".") else "."
            self.scope.bind(Binding(local, "import", None, node, self._next(), qualified=f"{module}{sep}{name}"))
        return False  # type: ignore[return-value]

    def visit_Global(self, node: cst.Global) -> None:
        return False  # type: ignore[return-value]

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        return False  # type: ignore[return-value]

    # --- uses -------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        use, targets = self.use.pop(id(node), ("other", ()))
        func = node.func
        while isinstance(func, cst.Call):
            func = func.func
        last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        args = tuple(a.value.value for a in node.args if isinstance(a.value, cst.Name))
        inner = node.func
        while isinstance(inner, cst.Call):  # jax.jit(f)(x): f is invoked here too
            args += tuple(a.value.value for a in inner.args if isinstance(a.value, cst.Name))
            inner = inner.func
        self.scope.calls.append(CallSite(node, self.scope, tuple(self.guards), tuple(self.withs), self._next(),
                                         use, targets, last, args))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.not_loads.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.not_loads.add(id(node.keyword))

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self.not_loads:
            self.scope.loads[node.value] = self.scope.loads.get(node.value, 0) + 1


def _names_in(node: cst.CSTNode) -> list[cst.Name]:
    if isinstance(node, cst.Name):
        return [node]
    if isinstance(node, (cst.Tuple, cst.List)):
        out: list[cst.Name] = []
        for el in node.elements:
            out += _names_in(el.value)
        return out
    return []


def index_module(module: cst.Module, block: object) -> Scope:
    root = Scope("module", "<module>", module, None, block)
    module.visit(_Indexer(root))
    return root
