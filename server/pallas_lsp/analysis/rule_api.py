"""The one rule API: a :class:`Hit` in, a :class:`Report` (or None) out.

The core knows rules only through this module. It is handed a :class:`RuleSet` and
dispatches each construct to the rules that name its API, so a call no rule names costs
one dictionary lookup however many rules there are:

* ``construct="call"``: a call reached from a kernel, keyed by the callee's public name
  (``jax.experimental.pallas.get_global``) or, for a function made by a decorator factory,
  by ``@`` + the factory's name (``@jax.experimental.pallas.mosaic_gpu.inline_mgpu``), or, for
  a method of a value the analysis cannot name (an array: ``x.cumsum()``, ``x.at[i].set(v)``),
  by ``.`` + the method's name (``.cumsum``);
* ``construct="launch"``: a launch (``pl.pallas_call(...)``, ``plgpu.kernel(...)``...),
  keyed by the launch API's public name.

A rule is either data (a record's detection section, interpreted by
``pallas_lsp.rules.data``) or a small Python class for conditions data cannot say. Fixes
are not built with the report: a report says which fixes apply, and ``Rule.fixes`` builds
their edits only when a client asks (a keystroke computes none).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Iterator, Literal, Sequence

from . import api
from .contexts import Context, JaxRelease, Mode
from .evaluate import _NO as NOT_KNOWN
from .evaluate import CallVal, Const, Decorated, Evaluator, Ext, Frames, Order, PartialVal, Value
from .findings import Fix, Related
from .module import ModuleIndex, Span
from .scopes import CallSite, Scope

if TYPE_CHECKING:  # pragma: no cover
    from .launches import Launch
    from .reach import Reached
    from .transforms import Transform

ConstructKind = Literal["call", "launch", "operator"]


@dataclass
class LaunchView:
    """A launch, with what rules need to look at it."""

    launch: "Launch"
    ev: Evaluator
    index: ModuleIndex
    reached: "list[Reached]"
    all_launches: "list[Launch]" = field(default_factory=list)
    release: JaxRelease = field(default_factory=JaxRelease)  # the jax the code is checked against


@dataclass
class Hit:
    """One construct in one of its kernel's contexts: a call reached from the kernel
    (``kind == "call"``), an array operator written without a call (``kind == "operator"``:
    ``x.T``, ``x[...]``; ``site`` is its scopes.OperatorSite), or the launch itself
    (``kind == "launch"``)."""

    kind: ConstructKind
    api: str  # the dispatch key the rule was chosen by
    site: CallSite  # the call (for a launch: the launch call)
    view: LaunchView
    context: Context
    reached: "Reached | None" = None  # the function the call is in (None for a launch)
    callee: Value | None = None
    # For a rule about transformations: the one (``jax.grad(...)``...) this hit is about.
    transform: "Transform | None" = None

    @property
    def release(self) -> JaxRelease:
        return self.view.release

    @property
    def ev(self) -> Evaluator:
        return self.view.ev  # (it answers for other modules' scopes too)

    @property
    def launch(self) -> "Launch":
        return self.view.launch

    @property
    def index(self) -> ModuleIndex:
        return self.view.index

    @property
    def call(self) -> CallSite:
        return self.site

    @property
    def mode(self) -> Mode:
        return self.context.mode

    @property
    def span(self) -> Span:
        return self.index.span(self.site.node, self.site.scope)

    @property
    def frames(self) -> Frames:
        """What the parameters of the function the construct is in hold on the way the kernel
        reached it (a helper's parameter as its caller passes it)."""
        return self.reached.frames if self.reached is not None else ()

    def reading(self):
        """A context in which values are read as this hit's kernel runs them (its frames)."""
        return self.ev.within(self.frames)

    def span_of(self, node: ast.AST, scope: Scope | None = None) -> Span:
        return self.index.span(node, scope or self.site.scope)

    def code_of(self, node: ast.AST, scope: Scope | None = None) -> str:
        return self.index.code_of(node, scope or self.site.scope)

    # -- arguments of the construct's call -------------------------------------------------
    def argument(self, position: int | None = None, keyword: str | None = None) -> ast.expr | None:
        """The argument passed at ``position`` or as ``keyword=`` (None when not passed).
        (Keywords a ``functools.partial`` of the callee binds count: see Evaluator.call_argument.)"""
        got = self.ev.call_argument(self.site, position, keyword) if self.kind == "call" else None
        if got is not None:
            return got[0]
        if keyword is not None:
            node = self.ev.kwarg(self.site, keyword)
            if node is not None:
                return node
        if position is not None:
            return self.ev.posarg(self.site, position)
        return None

    def value(self, node: ast.AST | None) -> Value:
        with self.reading():
            return self.ev.value(node, self.site.scope, self.ev.order_of(self.site))

    def literal(self, node: ast.AST | None) -> object:
        """The constant ``node`` is known to be (through names and the parameters the kernel's
        calls fill), or ``NOT_KNOWN``."""
        with self.reading():
            return self.ev.const(node, self.site.scope, self.ev.order_of(self.site))

    def api_of(self, node: ast.AST | None) -> str | None:
        """The public name of what ``node`` is, or of the API it is a call of
        (``pltpu.VMEM((8,), f32)`` -> ``jax.experimental.pallas.tpu.VMEM``)."""
        v = self.value(node)
        return self.ev.called_api(v) if isinstance(v, CallVal) else self.ev.ext_name(v)

    def result_unused(self) -> bool:
        """The call's result is dropped or bound to names nothing reads."""
        call = self.site
        if call.use == "expr":
            return True
        if call.use != "assign" or not call.targets:
            return False
        for name in call.targets:
            if any(s.loads.get(name, 0) for s in call.scope.walk()):
                return False
        return True

    # -- the launch ------------------------------------------------------------------------
    def params_call(self) -> CallSite | None:
        """The ``InterpretGPUParams(...)`` / ``InterpretParams(...)`` call this context's
        interpret params come from (inside a ``force_*_interpret_mode(...)`` call too), or None
        (default params, or built where the analysis cannot see)."""
        site = self.context.params_site
        if not isinstance(site, CallSite):
            return None
        ev = self.ev
        for _ in range(3):
            called = ev.ext_name(ev.value(site.node.func, site.scope, ev.order_of(site)))
            if called in (api.GPU_INTERPRET_PARAMS, api.TPU_INTERPRET_PARAMS):
                return site
            arg = ev.posarg(site, 0)
            v = ev.value(arg, site.scope, ev.order_of(site)) if arg is not None else None
            if not isinstance(v, CallVal):
                return None
            site = v.site
        return None

    def launch_option(self, keyword: str) -> tuple[ast.expr, Scope, Order] | None:
        """The launch's ``keyword=`` argument (through wrappers and partials), or None."""
        got = self.launch.options.get(keyword)
        return (got[0], got[1], got[2]) if got is not None else None


@dataclass(frozen=True)
class Report:
    """What a rule says about a hit: the error JAX raises and how to say it. ``span``
    (default: the construct's call) is what is underlined; ``key`` tells reports apart when
    one construct is reported by several launches (default: the underlined node);
    ``fixable`` says whether ``Rule.fixes`` may offer something (built on request);
    ``record`` is the slug of the record of the error JAX raises here, when one construct
    raises different errors in different contexts (default: the rule's record); ``warning``:
    the error depends on something the code does not say (such as the backend), so the
    finding is a warning however certain the context is; ``instead``: what the code can do
    instead here, when it is known (shown in the hover)."""

    error: str  # "ErrorClass: message" as JAX raises it here
    headline: str
    span: Span | None = None
    key: object = None
    related: tuple[Related, ...] = ()
    fixable: bool = True
    record: str | None = None
    warning: bool = False
    instead: str = ""


class Rule:
    """Base of every rule. Subclasses set the class attributes and implement :meth:`check`;
    rules that fix implement :meth:`fixes`."""

    # Class attributes of a Python rule; a data rule sets them per instance.
    code: str = ""
    name: str = ""
    record: str = ""  # the record slug it is tied to
    summary: str = ""
    construct: ConstructKind = "call"
    apis: frozenset[str] = frozenset()  # dispatch keys (see the module docstring)
    modes: frozenset[Mode] = frozenset()  # contexts it can fire in (empty: none)
    launch_apis: frozenset[str] | None = None  # only kernels launched by these (None: any)
    label: str = ""  # how messages name the construct, e.g. "pl.get_global"
    # A launch rule about what is done to the launch: the transformation kinds
    # ("differentiate", "reverse", "batch") or transformation APIs ("jax.jacfwd") it is about.
    # It is asked once per such transformation that reaches the launch (``Hit.transform``),
    # and never about the launch alone.
    transforms: frozenset[str] = frozenset()
    # The only jax releases whose error it reports (its record's ``releases``; "" is the pinned
    # one, as in JaxRelease.version); empty: every release.
    releases: frozenset[str] = frozenset()

    def raised_in(self, release: JaxRelease) -> bool:
        """Whether the checked release raises the rule's error at all."""
        return not self.releases or release.version in self.releases

    def check(self, hit: Hit) -> Report | None:
        raise NotImplementedError

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        return []

    def applies(self, hit: Hit) -> bool:
        """The context and launch checks every rule shares (the engine asks before ``check``)."""
        if hit.context.mode not in self.modes or hit.context.cpu_host:
            return False  # (on a CPU host a compiled launch fails before any backend rule)
        return self.launch_apis is None or hit.launch.api.name in self.launch_apis

    @property
    def documentation(self) -> str:
        return (type(self).__doc__ or "").strip()


class RuleSet:
    """The rules an engine runs, indexed by what they dispatch on."""

    def __init__(self, rules: Iterable[Rule] = ()) -> None:
        self.rules: list[Rule] = []
        self._calls: dict[str, list[Rule]] = {}
        self._launches: dict[str, list[Rule]] = {}
        self._any_launch: list[Rule] = []
        for rule in rules:
            self.add(rule)

    def add(self, rule: Rule) -> None:
        if not rule.code or not rule.name:
            raise ValueError(f"rule {type(rule).__name__} has no code or name")
        if any(r.code == rule.code for r in self.rules):
            raise ValueError(f"two rules with code {rule.code}")
        self.rules.append(rule)
        if rule.construct == "call":
            for key in rule.apis:
                self._calls.setdefault(key, []).append(rule)
        elif rule.apis:
            for key in rule.apis:
                self._launches.setdefault(key, []).append(rule)
        else:
            self._any_launch.append(rule)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    @property
    def key(self) -> tuple[str, ...]:
        return tuple(r.code for r in self.rules)

    @property
    def has_call_rules(self) -> bool:
        return bool(self._calls)

    def for_call(self, key: str) -> list[Rule]:
        return self._calls.get(key, [])

    def for_launch(self, key: str) -> list[Rule]:
        return self._launches.get(key, []) + self._any_launch

    def by_code(self, code: str) -> Rule | None:
        return next((r for r in self.rules if code in (r.code, r.name)), None)

    def codes(self) -> set[str]:
        return {c for r in self.rules for c in (r.code, r.name)}

    def subset(self, select: Iterable[str] | None, ignore: Iterable[str] = ()) -> "RuleSet":
        sel = {s.strip() for s in select} if select else None
        ign = {s.strip() for s in ignore}
        chosen: list[Rule] = []
        for r in self.rules:
            keys = {r.code, r.name}
            if sel is not None and not (keys & sel) and not any(r.code.startswith(s) for s in sel):
                continue
            if keys & ign:
                continue
            chosen.append(r)
        if len(chosen) == len(self.rules):
            return self
        return RuleSet(chosen)


def call_keys(ev: Evaluator, callee: Value, func: ast.AST | None = None) -> Sequence[str]:
    """The dispatch keys of a call of ``callee``: its public name (also through a
    ``functools.partial`` of it: the rule reads the partial's arguments with the call's, see
    Evaluator.call_argument), ``@factory`` for each decorator factory a decorated function was
    made with, or ``.method`` for a method of a value that is not a known API or function
    (``func``: the call's ``func`` node)."""
    for _ in range(4):
        if not isinstance(callee, PartialVal):
            break
        callee = callee.func
    name = ev.ext_name(callee)
    if name is not None:
        return (name,)
    if isinstance(func, ast.Attribute) and not isinstance(callee, (Decorated, CallVal)) \
            and ev.function_of(callee) is None:
        return ("." + func.attr,)
    keys: list[str] = []
    v = callee
    for _ in range(8):
        if isinstance(v, Decorated):
            d = v.decorator
            factory = ev.called_api(d) if isinstance(d, CallVal) else ev.ext_name(d)
            if factory:
                keys.append("@" + factory)
            v = v.inner
        elif isinstance(v, CallVal) and isinstance(v.func, CallVal):
            factory = ev.called_api(v.func)
            if factory:
                keys.append("@" + factory)
            break
        else:
            break
    return keys


__all__ = ["NOT_KNOWN", "ConstructKind", "Const", "Ext", "Hit", "LaunchView", "Report", "Rule", "RuleSet",
           "call_keys"]
