"""Per-block facts: scopes, bindings, call sites, decorators, ``with`` blocks.

One pass over a block's syntax tree builds this index; it is cached with the
block's parse, so nothing here runs again while the block's text is unchanged.
Lines in these facts are relative to the parsed text; :class:`~.module.ModuleIndex`
adds the block's offset.

The tree is the standard library's ``ast`` (its C parser is ~25x faster than
libcst's and carries positions for free, measured in docs/performance.md);
libcst decides whether a block ``ast`` rejects is valid newer Python (see module.py).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterator


@dataclass(eq=False, repr=False)
class Binding:
    name: str
    kind: str  # "assign" | "unpack" | "def" | "class" | "import" | "param" | "loop" | "with" | "aug" | "other"
    node: ast.AST | None  # the value expression (assign), the def (def/class), None otherwise
    stmt: ast.AST | None  # the statement that binds
    seq: int  # order within the block
    index: int = -1  # position inside a tuple target, for "unpack"
    qualified: str = ""  # for imports: the qualified name bound
    scope: "Scope | None" = None  # the scope it binds in (set by Scope.bind)
    type_checking: bool = False  # bound under ``if TYPE_CHECKING:`` (what the name statically is)


@dataclass(eq=False, repr=False)
class CallSite:
    node: ast.Call
    scope: "Scope"
    guards: tuple[tuple[ast.expr, bool], ...]  # enclosing if-tests in this scope and the branch taken
    withs: tuple["WithSite", ...]  # enclosing with-blocks in this scope
    seq: int
    use: str = "other"  # "expr" (result dropped), "assign" (bound to names), "other"
    targets: tuple[str, ...] = ()
    # Cheap keys for prefiltering without evaluating anything: the last name of the
    # callee (``pallas_call`` for ``pl.pallas_call(...)`` and for ``pl.core_map(m)(f)``)
    # and the plain names passed as arguments.
    callee_last: str = ""
    arg_names: tuple[str, ...] = ()

    @property
    def positional(self) -> list[ast.expr]:
        return [a for a in self.node.args if not isinstance(a, ast.Starred)]

    @property
    def keywords(self) -> dict[str, ast.expr]:
        return {k.arg: k.value for k in self.node.keywords if k.arg is not None}

    @property
    def has_star(self) -> bool:
        return any(isinstance(a, ast.Starred) for a in self.node.args) or \
            any(k.arg is None for k in self.node.keywords)

    @property
    def all_args(self) -> list[ast.expr]:
        return [a.value if isinstance(a, ast.Starred) else a for a in self.node.args] + \
            [k.value for k in self.node.keywords]


@dataclass(eq=False, repr=False)
class DecoratorSite:
    node: ast.expr  # the decorator expression
    scope: "Scope"  # the scope the decorator expression is evaluated in
    target: "Scope"  # the decorated def
    index: int  # 0 = outermost (applied last)
    guards: tuple[tuple[ast.expr, bool], ...]
    withs: tuple["WithSite", ...]
    seq: int


@dataclass(eq=False, repr=False)
class WithSite:
    node: ast.With | ast.AsyncWith
    scope: "Scope"
    guards: tuple[tuple[ast.expr, bool], ...]
    withs: tuple["WithSite", ...]
    seq: int


@dataclass(eq=False, repr=False)
class OperatorSite:
    """An array operation written without a call: ``x.T`` / ``x.mT`` and ``x[...]`` reads (not
    ``x.at[...]``, whose ``.set(...)`` is the call). Rules see them under the keys of
    ``OPERATOR_KEYS`` ("operator:.T", "operator:[]")."""

    node: ast.Attribute | ast.Subscript | ast.BinOp
    scope: "Scope"
    guards: tuple[tuple[ast.expr, bool], ...]
    withs: tuple["WithSite", ...]
    seq: int
    key: str


# The attributes that are array operations (``x.T`` emits a transpose).
OPERATOR_ATTRIBUTES = frozenset({"T", "mT"})
SUBSCRIPT_KEY = "operator:[]"
MATMUL_KEY = "operator:@"  # ``a @ b`` (not in OPERATOR_KEYS: no lowering table names it)
OPERATOR_KEYS = frozenset({SUBSCRIPT_KEY} | {f"operator:.{a}" for a in OPERATOR_ATTRIBUTES})


for _cls in (Binding, CallSite, DecoratorSite, WithSite, OperatorSite):
    _cls.__repr__ = lambda self: f"<{type(self).__name__} seq={self.seq}>"  # type: ignore[method-assign]


@dataclass(eq=False)
class Scope:
    kind: str  # "module" | "function" | "lambda" | "class"
    name: str
    node: ast.AST | None
    parent: "Scope | None"
    block: object = None  # the BlockParse this scope came from (for positions)
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    calls: list[CallSite] = field(default_factory=list)
    operators: list[OperatorSite] = field(default_factory=list)
    decorators: list[DecoratorSite] = field(default_factory=list)
    withs: list[WithSite] = field(default_factory=list)
    children: list["Scope"] = field(default_factory=list)
    loads: dict[str, int] = field(default_factory=dict)
    params: list[tuple[str, ast.expr | None, str]] = field(default_factory=list)  # name, default, kind
    param_nodes: list[ast.arg] = field(default_factory=list)
    returns: list[ast.expr] = field(default_factory=list)
    # For a def: the guards under which the def statement itself runs in its parent.
    def_guards: tuple[tuple[ast.expr, bool], ...] = ()

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
        """This scope and every scope inside it, pre-order (iterative: 2,000 nested lambdas
        would otherwise nest as many generators)."""
        stack: list[Scope] = [self]
        while stack:
            s = stack.pop()
            yield s
            stack.extend(reversed(s.children))

    def bind(self, b: Binding) -> None:
        b.scope = self
        self.bindings.setdefault(b.name, []).append(b)

    def bind_here(self, b: Binding, guards: list[tuple[ast.expr, bool]]) -> None:
        b.type_checking = any(branch and _is_type_checking(test) for test, branch in guards)
        self.bind(b)

    @property
    def function_def(self) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        return self.node if isinstance(self.node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def dotted_name(node: ast.AST | None) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _names_in(node: ast.AST) -> list[ast.Name]:
    if isinstance(node, ast.Name):
        return [node]
    if isinstance(node, (ast.Tuple, ast.List)):
        out: list[ast.Name] = []
        for el in node.elts:
            out += _names_in(el)
        return out
    if isinstance(node, ast.Starred):
        return _names_in(node.value)
    return []


_OTHER: tuple[str, tuple[str, ...]] = ("other", ())
_MAX_CHAIN_ARGS = 256  # names kept from the inner calls of one chain (a prefilter's keys)


class _LeaveScope:
    """A marker on the expression walker's stack: the scope to return to after a lambda."""

    __slots__ = ("scope", "guards", "withs")

    def __init__(self, scope: "Scope", guards: list, withs: list) -> None:
        self.scope, self.guards, self.withs = scope, guards, withs


class _Indexer:
    """Walks statements and expressions in source order, keeping the scope, the enclosing
    if-tests (guards) and with-blocks of every call."""

    def __init__(self, root: Scope) -> None:
        self.scope = root
        self.guards: list[tuple[ast.expr, bool]] = []
        self.withs: list[WithSite] = []
        self.seq = 0
        self._chains: dict[int, tuple[str, tuple[str, ...]]] = {}  # id(inner call) -> its _chain_of

    def _next(self) -> int:
        self.seq += 1
        return self.seq

    # --- scopes ---------------------------------------------------------------------
    def _in_scope(self, scope: Scope, body) -> None:
        saved = (self.scope, self.guards, self.withs)
        self.scope, self.guards, self.withs = scope, [], []
        try:
            body()
        finally:
            self.scope, self.guards, self.withs = saved

    def _params(self, s: Scope, args: ast.arguments) -> None:
        positional = list(args.posonlyargs) + list(args.args)
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        for i, a in enumerate(positional):
            kind = "posonly" if i < len(args.posonlyargs) else "normal"
            s.params.append((a.arg, defaults[i], kind))
            s.param_nodes.append(a)
        if args.vararg is not None:
            s.params.append((args.vararg.arg, None, "star"))
        for a, d in zip(args.kwonlyargs, args.kw_defaults):
            s.params.append((a.arg, d, "kwonly"))
            s.param_nodes.append(a)
        if args.kwarg is not None:
            s.params.append((args.kwarg.arg, None, "starstar"))
        for name, _, _ in s.params:
            s.bind(Binding(name, "param", None, None, 0))
        # Defaults are evaluated in the enclosing scope, when the def runs.
        for d in [*args.defaults, *[d for d in args.kw_defaults if d is not None]]:
            self.expr(d)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        s = Scope("function", node.name, node, self.scope, self.scope.block, def_guards=tuple(self.guards))
        self.scope.children.append(s)
        for i, d in enumerate(node.decorator_list):
            self.expr(d)
            self.scope.decorators.append(
                DecoratorSite(d, self.scope, s, i, tuple(self.guards), tuple(self.withs), self._next()))
        self._params(s, node.args)
        self.scope.bind(Binding(node.name, "def", node, node, self._next()))
        self._in_scope(s, lambda: self.stmts(node.body))

    def class_(self, node: ast.ClassDef) -> None:
        for d in node.decorator_list:
            self.expr(d)
        for b in node.bases:
            self.expr(b)
        for k in node.keywords:
            self.expr(k.value)
        s = Scope("class", node.name, node, self.scope, self.scope.block, def_guards=tuple(self.guards))
        self.scope.children.append(s)
        self.scope.bind(Binding(node.name, "class", node, node, self._next()))
        self._in_scope(s, lambda: self.stmts(node.body))

    # --- statements -------------------------------------------------------------------
    def stmts(self, body: list[ast.stmt]) -> None:
        for st in body:
            self.stmt(st)

    def stmt(self, st: ast.stmt) -> None:
        t = type(st)
        if t is ast.Expr:
            self.expr(st.value, use=("expr", ()))
        elif t is ast.Assign:
            names = [x.id for x in st.targets if isinstance(x, ast.Name)]
            use = ("assign", tuple(names)) if names and len(names) == len(st.targets) else ("other", ())
            self.expr(st.value, use=use)
            for tgt in st.targets:
                self.target(tgt, "assign", st.value, st)
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef):
            self.function(st)  # type: ignore[arg-type]
        elif t is ast.ClassDef:
            self.class_(st)  # type: ignore[arg-type]
        elif t is ast.If:
            self.expr(st.test)
            self.guards.append((st.test, True))
            self.stmts(st.body)
            self.guards[-1] = (st.test, False)
            self.stmts(st.orelse)
            self.guards.pop()
        elif t in (ast.With, ast.AsyncWith):
            for item in st.items:
                self.expr(item.context_expr)
                if item.optional_vars is not None:
                    self.target(item.optional_vars, "with", None, st)
            w = WithSite(st, self.scope, tuple(self.guards), tuple(self.withs), self._next())  # type: ignore[arg-type]
            self.scope.withs.append(w)
            self.withs.append(w)
            self.stmts(st.body)
            self.withs.pop()
        elif t in (ast.For, ast.AsyncFor):
            self.expr(st.iter)
            self.target(st.target, "loop", None, st)
            self.stmts(st.body)
            self.stmts(st.orelse)
        elif t is ast.While:
            self.expr(st.test)
            self.guards.append((st.test, True))
            self.stmts(st.body)
            self.guards.pop()
            self.stmts(st.orelse)
        elif t is ast.Return:
            if st.value is not None:
                self.scope.returns.append(st.value)
                self.expr(st.value)
        elif t is ast.AnnAssign:
            if st.value is not None:
                self.expr(st.value)
            self.target(st.target, "assign" if st.value is not None else "other", st.value, st)
        elif t is ast.AugAssign:
            self.expr(st.value)
            if isinstance(st.target, ast.Name):
                self.load(st.target.id)
            else:
                self.expr(st.target)
            self.target(st.target, "aug", None, st)
        elif t is ast.Import:
            for alias in st.names:
                if alias.asname:
                    local, qual = alias.asname, alias.name
                else:
                    local = qual = alias.name.split(".")[0]
                self.scope.bind_here(Binding(local, "import", None, st, self._next(), qualified=qual), self.guards)
        elif t is ast.ImportFrom:
            module = "." * (st.level or 0) + (st.module or "")
            for alias in st.names:
                if alias.name == "*":
                    self.scope.bind(Binding("*", "import", None, st, self._next(), qualified=module + ".*"))
                    continue
                sep = "" if module.endswith(".") else "."
                self.scope.bind_here(Binding(alias.asname or alias.name, "import", None, st, self._next(),
                                             qualified=f"{module}{sep}{alias.name}"), self.guards)
        elif t is ast.Try or t.__name__ == "TryStar":
            self.stmts(st.body)  # type: ignore[attr-defined]
            for h in st.handlers:  # type: ignore[attr-defined]
                if h.type is not None:
                    self.expr(h.type)
                if h.name:
                    self.scope.bind(Binding(h.name, "other", None, h, self._next()))
                self.stmts(h.body)
            self.stmts(st.orelse)  # type: ignore[attr-defined]
            self.stmts(st.finalbody)  # type: ignore[attr-defined]
        elif t is ast.Delete:
            for tgt in st.targets:
                if not isinstance(tgt, (ast.Name, ast.Tuple, ast.List)):
                    self.expr(tgt)
        elif t in (ast.Global, ast.Nonlocal, ast.Pass, ast.Break, ast.Continue):
            pass
        elif t.__name__ == "Match":
            self.expr(st.subject)  # type: ignore[attr-defined]
            for case in st.cases:  # type: ignore[attr-defined]
                if case.guard is not None:
                    self.expr(case.guard)
                self.stmts(case.body)
        else:  # Raise, Assert, TypeAlias, ...: just their expressions
            for child in ast.iter_child_nodes(st):
                if isinstance(child, ast.expr):
                    self.expr(child)
                elif isinstance(child, ast.stmt):
                    self.stmt(child)

    def target(self, target: ast.AST, kind: str, value: ast.AST | None, stmt: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self.scope.bind_here(Binding(target.id, kind, value, stmt, self._next()), self.guards)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for i, el in enumerate(target.elts):
                if isinstance(el, ast.Name):
                    self.scope.bind(Binding(el.id, "unpack" if kind == "assign" else kind, value, stmt,
                                            self._next(), index=i))
                else:
                    self.target(el, "other", None, stmt)
        elif isinstance(target, ast.Starred):
            self.target(target.value, "other", None, stmt)
        else:  # attribute or subscript targets read their base
            self.expr(target)

    # --- expressions ------------------------------------------------------------------
    def load(self, name: str) -> None:
        self.scope.loads[name] = self.scope.loads.get(name, 0) + 1

    def expr(self, node: ast.AST, use: tuple[str, tuple[str, ...]] = ("other", ())) -> None:
        """Pre-order, source order: a call is recorded before the calls in its arguments."""
        stack: list[tuple[ast.AST, tuple[str, tuple[str, ...]]]] = [(node, use)]
        while stack:
            n, u = stack.pop()
            t = type(n)
            if t is ast.Name:
                if isinstance(n.ctx, ast.Load):  # type: ignore[attr-defined]
                    self.load(n.id)  # type: ignore[attr-defined]
                continue
            if t is ast.Call:
                self.call(n, u)  # type: ignore[arg-type]
                kids = [n.func, *n.args, *[k.value for k in n.keywords]]  # type: ignore[attr-defined]
                stack.extend((k, _OTHER) for k in reversed(kids))
                continue
            if t is ast.Lambda:
                # Enter the lambda's scope here and leave it once its body's subtree (pushed
                # above the marker) is done: no recursion, however deeply lambdas nest.
                s = Scope("lambda", "<lambda>", n, self.scope, self.scope.block, def_guards=tuple(self.guards))
                self.scope.children.append(s)
                self._params(s, n.args)  # type: ignore[attr-defined]
                stack.append((_LeaveScope(self.scope, self.guards, self.withs), _OTHER))
                self.scope, self.guards, self.withs = s, [], []
                s.returns.append(n.body)  # type: ignore[attr-defined]
                stack.append((n.body, _OTHER))  # type: ignore[attr-defined]
                continue
            if t is _LeaveScope:
                self.scope, self.guards, self.withs = n.scope, n.guards, n.withs  # type: ignore[attr-defined]
                continue
            if t is ast.NamedExpr:
                stack.append((n.value, ("other", ())))  # type: ignore[attr-defined]
                self.target(n.target, "assign", n.value, n)  # type: ignore[attr-defined]
                continue
            if t is ast.Attribute:
                if n.attr in OPERATOR_ATTRIBUTES and isinstance(n.ctx, ast.Load):  # type: ignore[attr-defined]
                    self.operator(n, f"operator:.{n.attr}")  # type: ignore[attr-defined]
                stack.append((n.value, _OTHER))  # type: ignore[attr-defined]
                continue
            if t is ast.Constant:
                continue
            if t in (ast.Tuple, ast.List, ast.Set):
                stack.extend((k, _OTHER) for k in reversed(n.elts))  # type: ignore[attr-defined]
                continue
            if t is ast.Subscript:
                base = n.value  # type: ignore[attr-defined]
                if isinstance(n.ctx, ast.Load) and not (isinstance(base, ast.Attribute) and base.attr == "at"):  # type: ignore[attr-defined]
                    self.operator(n, SUBSCRIPT_KEY)  # type: ignore[arg-type]
                stack.append((n.slice, _OTHER))  # type: ignore[attr-defined]
                stack.append((n.value, _OTHER))  # type: ignore[attr-defined]
                continue
            if t is ast.BinOp:
                if isinstance(n.op, ast.MatMult):  # type: ignore[attr-defined]
                    self.operator(n, MATMUL_KEY)  # type: ignore[arg-type]
                stack.append((n.right, _OTHER))  # type: ignore[attr-defined]
                stack.append((n.left, _OTHER))  # type: ignore[attr-defined]
                continue
            if t is ast.Starred:
                stack.append((n.value, _OTHER))  # type: ignore[attr-defined]
                continue
            if t in (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp):
                for g in n.generators:  # type: ignore[attr-defined]
                    self.target(g.target, "loop", None, n)
            stack.extend((k, _OTHER) for k in reversed(list(ast.iter_child_nodes(n))))

    def operator(self, node: ast.Attribute | ast.Subscript, key: str) -> None:
        self.scope.operators.append(OperatorSite(node, self.scope, tuple(self.guards), tuple(self.withs),
                                                 self._next(), key))

    def call(self, node: ast.Call, use: tuple[str, tuple[str, ...]]) -> None:
        last, inner_args = self._chain_of(node)
        args = tuple(a.id for a in node.args if isinstance(a, ast.Name)) + \
            tuple(k.value.id for k in node.keywords if isinstance(k.value, ast.Name)) + inner_args
        self.scope.calls.append(CallSite(node, self.scope, tuple(self.guards), tuple(self.withs), self._next(),
                                         use[0], use[1], last, args))

    def _chain_of(self, node: ast.Call) -> tuple[str, tuple[str, ...]]:
        """The last name of the callee under a chain of calls (``pallas_call`` for
        ``pl.pallas_call(...)(x)``) and the plain names passed positionally to the inner calls
        (``jax.jit(f)(x)``: f is invoked here too). Worked out once per chain, innermost first:
        a chain of 2,500 calls costs 2,500 steps, not 2,500²."""
        memo = self._chains
        chain: list[ast.Call] = []
        func: ast.AST = node.func
        while isinstance(func, ast.Call) and id(func) not in memo:
            chain.append(func)
            func = func.func
        if isinstance(func, ast.Call):
            last, inner = memo[id(func)]
        else:
            last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            inner = ()
        for call in reversed(chain):  # innermost first; the names stay outermost first
            own = tuple(a.id for a in call.args if isinstance(a, ast.Name))
            inner = (own + inner)[:_MAX_CHAIN_ARGS]
            memo[id(call)] = (last, inner)
        return last, inner


def index_module(module: ast.Module, block: object) -> Scope:
    root = Scope("module", "<module>", module, None, block)
    _Indexer(root).stmts(module.body)
    return root


_NESTED_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def own_nodes(fn: ast.AST):
    """The nodes of a def's (or lambda's) own body, in breadth-first order, without those of
    the functions and classes defined in it (their own scopes)."""
    todo = [fn.body] if isinstance(fn, ast.Lambda) else list(getattr(fn, "body", []))
    while todo:
        node = todo.pop(0)
        if isinstance(node, _NESTED_DEFS):
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))
