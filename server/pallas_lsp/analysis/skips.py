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
from .evaluate import CallVal, Const, Evaluator, Ext, TupleVal
from .scopes import CallSite, Scope

_SKIP_IF = {"skipIf", "skipif"}  # unittest/absltest skipIf, pytest.mark.skipif
_SKIP_UNLESS = {"skipUnless"}
_SKIP_ALWAYS = {"skip"}
_TEST_MODULES = ("unittest", "absl", "pytest")


def skipped(ev: Evaluator, site: CallSite, cls: object) -> bool:
    """Whether the test method around ``site`` surely does not reach it when run by ``cls``
    (a classes.ClassRef, or None: only conditions that do not read ``self`` count)."""
    method = classes.method_of(site.scope)
    if method is None or method.node is None:
        return False
    ev = ev.other(method)
    ref = cls if isinstance(cls, classes.ClassRef) else None
    truth = _Truth(ev, ref)
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
    if ref is not None and _class_skipped(ref):
        return True
    if ref is not None:
        found = classes.member(ref, "setUp")
        if found is not None and found[1].kind == "def" and found[1].node is not None:
            setup = ev.other(found[1].scope)._scope_of_node(found[1].node, found[1].scope)  # type: ignore[arg-type]
            if setup is not None and _body_skips(found[1].node.body, setup, _Truth(ev.other(setup), ref), None):  # type: ignore[attr-defined]
                return True
    return False


def _class_skipped(ref: classes.ClassRef) -> bool:
    """A skip decorator on the class or on a base it inherits from (unittest marks the class,
    and subclasses inherit the mark)."""
    for cls in classes.mro(ref)[0]:
        info = cls.info
        for sc in info.scopes if info is not None else ():
            decorators = getattr(sc.node, "decorator_list", ())
            if decorators and sc.parent is not None and \
                    _skip_decorator(cls.ev, [(d, sc.parent, None) for d in decorators], _Truth(cls.ev, None)):
                return True
    return False


def _decorated_skip(ev: Evaluator, method: Scope, truth: "_Truth") -> bool:
    return _skip_decorator(ev, [(d.node, d.scope, ev.order_of(d)) for d in ev._decorators_of(method)], truth)


def _skip_decorator(ev: Evaluator, decorators: list, truth: "_Truth") -> bool:
    for node, scope, order in decorators:
        v = ev.value(node, scope, order)
        name = ev.called_api(v) if isinstance(v, CallVal) else ev.ext_name(v)
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
    if t is True:
        return any(_ends_test(s) for s in st.body)
    if t is False:
        if len(st.orelse) == 1 and isinstance(st.orelse[0], ast.If):
            return _branch_skips(st.orelse[0], scope, truth)
        return any(_ends_test(s) for s in st.orelse)
    return False


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

    def __init__(self, ev: Evaluator, cls: classes.ClassRef | None) -> None:
        self.ev = ev
        self.cls = cls

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
        v = self.ev.value(node, scope, None)
        return bool(v.value) if isinstance(v, Const) else None

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
