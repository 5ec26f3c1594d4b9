"""Tests that do not run in a context: skip guards.

A launch in a test method does not run for a class when the test is skipped there::

    if self.INTERPRET:
        self.skipTest("Control flow not supported in interpret mode yet.")

(or ``pytest.skip(...)``, ``raise unittest.SkipTest(...)``, ``return``, the inverted
``if not self.INTERPRET:``, an ``else:`` branch, a ``@unittest.skipIf(...)`` /
``@pytest.mark.skipif(...)`` decorator on the test or on its class or a base class, or the
same guard in ``setUp``). Conditions are read
three-valued: ``self.X`` takes the value the context's class gives it, constants their
value, anything else (``jtu.test_device_matches(["tpu"])``) is unknown, and only a condition
that surely holds removes the context.
"""
from __future__ import annotations

import ast

from . import classes
from .evaluate import CallVal, Const, Evaluator, Ext, ParamVal, TupleVal
from .hosts import COMPILED_SKIPPED_ON_CPU_BASES, RUN_ON_DEVICES, SKIP_ON_DEVICES, platform_names, truth_on_cpu_host
from .scopes import CallSite, Scope

_SKIP_IF = {"skipIf", "skipif"}  # unittest/absltest skipIf, pytest.mark.skipif
_SKIP_UNLESS = {"skipUnless"}
_SKIP_ALWAYS = {"skip"}
_TEST_MODULES = ("unittest", "absl", "pytest")


def skipped(ev: Evaluator, site: CallSite, cls: object, host: str | None = None, via: tuple = ()) -> bool:
    """Whether the test method around ``site`` surely does not reach it when run by ``cls``
    (a classes.ClassRef, or None: only conditions that do not read ``self`` count).
    ``host="cpu"``: on a CPU-only host, where host tests have a value (hosts.py) and any
    function, not only a test, may branch away from the launch; ``via``: the callers' calls
    the context came through, whose arguments fill the parameters a condition reads."""
    ref = cls if isinstance(cls, classes.ClassRef) else None
    if host is not None:
        truth = _Truth(ev.other(site.scope), ref, host, via)
        if _guarded_away(site, truth):
            return True
    method = classes.method_of(site.scope)
    if method is None or method.node is None:
        return False
    ev = ev.other(method)
    if ref is None and host is not None and method.parent is not None:
        ref = classes.class_of(ev, method.parent)  # (its own class's setUp and decorators)
    truth = _Truth(ev, ref, host, via)
    # The launch's own enclosing ifs (in its scope) that are surely not taken.
    for test, branch in site.guards:
        t = truth(test, site.scope)
        if t is not None and t != branch:
            return True
    if _decorated_skip(ev, method, truth):
        return True
    line = getattr(site.node, "lineno", 0)  # (the method's statements before the launch's)
    if _body_skips(method.node.body, method, truth, before=line):  # type: ignore[attr-defined]
        return True
    if ref is not None and _class_skipped(ref, host):
        return True
    if ref is not None and _set_up_skips(ev, ref, host):
        return True
    return False


def class_skipped(ev: Evaluator, ref: classes.ClassRef, host: str | None = None) -> bool:
    """Whether every test of the class is surely skipped (``host="cpu"``: on a CPU-only
    host): a skip decorator on it or a base, or a setUp that skips."""
    return _class_skipped(ref, host) or _set_up_skips(ev, ref, host)


def _set_up_skips(ev: Evaluator, ref: classes.ClassRef, host: str | None) -> bool:
    """A ``setUp`` the test runs that surely skips it: the nearest one, and those it reaches
    through ``super().setUp()`` (a base class's ``if not jtu.test_device_matches(["tpu"]):
    self.skipTest(...)`` under a subclass's own setUp)."""
    for cls in classes.mro(ref)[0]:
        info = cls.info
        if host == "cpu" and _jax_test_base_skips_on_cpu(ref, cls):
            return True
        if info is None or "setUp" not in info.members:
            continue
        b = info.members["setUp"][-1]
        if b.kind != "def" or b.node is None:
            return False
        setup = cls.ev._scope_of_node(b.node, b.scope)  # type: ignore[arg-type]
        if setup is not None and _body_skips(b.node.body, setup, _Truth(ev.other(setup), ref, host), None):  # type: ignore[attr-defined]
            return True
        if not _calls_super(b.node, "setUp"):
            return False
    return False


def _jax_test_base_skips_on_cpu(ref: classes.ClassRef, cls: classes.ClassRef) -> bool:
    """``cls`` derives from one of jax's Pallas test bases, whose setUp skips on a CPU host
    unless the test's class sets ``INTERPRET`` (hosts.COMPILED_SKIPPED_ON_CPU_BASES)."""
    info = cls.info
    if info is None:
        return False
    bases = {cls.ev.ext_name(cls.ev.value(b, sc.parent, None)) for sc in info.scopes
             if sc.parent is not None and getattr(sc.block, "kind", None) != "member"
             for b in getattr(sc.node, "bases", ())}
    if not bases & COMPILED_SKIPPED_ON_CPU_BASES:
        return False
    for c in classes.mro(ref)[0]:  # (the nearest INTERPRET; the base's own is False)
        if c.info is not None and "INTERPRET" in c.info.members:
            b = c.info.members["INTERPRET"][-1]
            v = c.ev.value(b.node, b.scope, None) if b.kind == "assign" and b.node is not None else None
            return isinstance(v, Const) and not v.value
    return True


def _calls_super(fn: ast.AST, name: str) -> bool:
    """``super().<name>(...)`` somewhere in ``fn``."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == name
               and isinstance(n.func.value, ast.Call) and isinstance(n.func.value.func, ast.Name)
               and n.func.value.func.id == "super" for n in ast.walk(fn))


def _guarded_away(site: CallSite, truth: "_Truth") -> bool:
    """The launch's enclosing ifs, or a branch that returns before it in its function, surely
    keep it from running (``if on_gpu:`` around it; ``if jax.default_backend() == "cpu":
    return reference(x)`` above it)."""
    for test, branch in site.guards:
        t = truth(test, site.scope)
        if t is not None and t != branch:
            return True
    fn = site.scope
    if fn.kind != "function" or fn.node is None:
        return False
    return _body_skips(fn.node.body, fn, truth, before=getattr(site.node, "lineno", 0))  # type: ignore[attr-defined]


def _class_skipped(ref: classes.ClassRef, host: str | None = None) -> bool:
    """A skip decorator on the class or on a base it inherits from (unittest marks the class,
    and subclasses inherit the mark)."""
    for cls in classes.mro(ref)[0]:
        info = cls.info
        for sc in info.scopes if info is not None else ():
            decorators = getattr(sc.node, "decorator_list", ())
            if decorators and sc.parent is not None and \
                    _skip_decorator(cls.ev, [(d, sc.parent, None) for d in decorators], _Truth(cls.ev, None, host)):
                return True
    return False


def _decorated_skip(ev: Evaluator, method: Scope, truth: "_Truth") -> bool:
    return _skip_decorator(ev, [(d.node, d.scope, ev.order_of(d)) for d in ev._decorators_of(method)], truth)


def _skip_decorator(ev: Evaluator, decorators: list, truth: "_Truth") -> bool:
    for node, scope, order in decorators:
        v = ev.value(node, scope, order)
        name = ev.called_api(v) if isinstance(v, CallVal) else ev.ext_name(v)
        if truth.host == "cpu" and isinstance(v, CallVal) and name in (SKIP_ON_DEVICES, RUN_ON_DEVICES):
            # ``@jtu.skip_on_devices("cpu")``, ``@jtu.run_on_devices("tpu")``
            platforms = [platform_names(a, ev, scope, order) for a in v.site.positional]
            if all(p is not None for p in platforms) and platforms:
                on_cpu = any("cpu" in p for p in platforms)  # type: ignore[operator]
                if on_cpu == (name == SKIP_ON_DEVICES):
                    return True
            continue
        if not name or not name.startswith(_TEST_MODULES):
            continue
        last = name.rsplit(".", 1)[-1]
        if last in _SKIP_ALWAYS and isinstance(v, CallVal | Ext):
            return True
        if not isinstance(v, CallVal) or not v.site.positional:
            continue
        t = truth(v.site.positional[0], scope)
        if (last in _SKIP_IF and t is True) or (last in _SKIP_UNLESS and t is False):
            return True
    return False


def _body_skips(body: list[ast.stmt], scope: Scope, truth: "_Truth", before: int | None) -> bool:
    """Whether the statements (up to line ``before``) surely end the test first."""
    for st in body:
        if before is not None and (st.end_lineno or st.lineno) >= before:
            return False
        if _ends_test(st):
            return True
        if isinstance(st, ast.If) and _branch_skips(st, scope, truth):
            return True
    return False


def _branch_skips(st: ast.If, scope: Scope, truth: "_Truth") -> bool:
    t = truth(st.test, scope)
    if t is None:
        return False
    # (The branch taken, its own ifs included: ``if on_cpu: if not self.INTERPRET: skip``.)
    return _body_skips(st.body if t else st.orelse, scope, truth, None)


def _ends_test(st: ast.stmt) -> bool:
    """``self.skipTest(...)``, ``pytest.skip(...)``, ``raise ...SkipTest(...)``, ``return``."""
    if isinstance(st, ast.Return):
        return True
    if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
        f = st.value.func
        if isinstance(f, ast.Attribute) and f.attr == "skipTest":
            return True
        if isinstance(f, ast.Attribute) and f.attr == "skip" and isinstance(f.value, ast.Name) \
                and f.value.id == "pytest":
            return True
    if isinstance(st, ast.Raise) and st.exc is not None:
        exc = st.exc.func if isinstance(st.exc, ast.Call) else st.exc
        tail = exc.attr if isinstance(exc, ast.Attribute) else exc.id if isinstance(exc, ast.Name) else ""
        return tail == "SkipTest"
    return False


class _Truth:
    """A condition's truth in one class's context: True, False, or None (cannot tell)."""

    def __init__(self, ev: Evaluator, cls: classes.ClassRef | None, host: str | None = None,
                 via: tuple = (), depth: int = 0) -> None:
        self.ev = ev
        self.cls = cls
        self.host = host  # "cpu": host tests have their value on a CPU-only host
        self.via = via
        self.depth = depth

    def __call__(self, node: ast.expr, scope: Scope) -> bool | None:
        if isinstance(node, ast.BoolOp):
            parts = [self(v, scope) for v in node.values]
            if isinstance(node.op, ast.And):
                return False if False in parts else True if all(p is True for p in parts) else None
            return True if True in parts else False if all(p is False for p in parts) else None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            t = self(node.operand, scope)
            return None if t is None else not t
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in ("self", "cls"):
            return self._attribute(node.attr)
        if self.host == "cpu":
            t = truth_on_cpu_host(node, self.ev, scope)
            if t is not None:
                return t
        v = self.ev.value(node, scope, None)
        if isinstance(v, ParamVal) and self.host is not None:
            return self._argument(v)
        return bool(v.value) if isinstance(v, Const) else None

    def _argument(self, v: ParamVal) -> bool | None:
        """A parameter's truth: the argument of the caller's call the context came through,
        else the one every caller passes alike (None: no caller, or callers that differ)."""
        if self.depth > 3:
            return None
        chosen = [site for fn, site in self.via if fn is v.scope]
        found: set[bool | None] = set()
        for inv in self.ev.callers_of(v.scope):
            if chosen and inv.site is not chosen[0]:
                continue
            b = self.ev.bind_param(inv, v.name)
            if b is None or b.node is None or b.scope is None:
                return None
            inner = _Truth(self.ev.other(b.scope), self.cls, self.host, self.via, self.depth + 1)
            found.add(inner(b.node, b.scope))
            if None in found or len(found) > 1:
                return None
        return found.pop() if found else None

    def _attribute(self, attr: str) -> bool | None:
        if self.cls is None:
            return None
        found = classes.member(self.cls, attr)
        if found is None or found[1].kind != "assign" or found[1].node is None:
            return None
        b = found[1]
        v = found[0].ev.value(b.node, b.scope, None)  # type: ignore[arg-type]
        if isinstance(v, Const):
            return bool(v.value)
        if isinstance(v, TupleVal):
            return bool(v.items)
        if isinstance(v, CallVal) and isinstance(v.func, Ext):
            return True  # an instance (InterpretParams(...)): truthy
        return None
