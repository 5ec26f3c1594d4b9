"""Find every kernel launch in a module and work out the contexts it runs in."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import ast

from . import api, classes, skips
from .contexts import Context, ContextSet, Evidence, JaxRelease, Mode
from .evaluate import (
    CallVal, Const, Decorated, Evaluator, Ext, FuncVal, Invocation, Order, ParamVal, PartialVal, TupleVal, Value,
)
from .incremental import Deps
from .module import ModuleIndex, Span
from .scopes import CallSite, DecoratorSite, Scope
from .hosts import find_cpu_pins, host_test
from .applications import (applied_at, applies, enclosing_function as _enclosing_function, is_built_launch,
                           through_wrappers)
# (What the rules import from here; they live in .applications, which .transforms shares.)
from .applications import kernel_operand_params, scratch_count  # noqa: F401
from .transforms import TransformFinder

_LAUNCH_LAST_NAMES = {"pallas_call", "kernel", "core_map"}
_MAX_CALLER_DEPTH = 6


@dataclass(eq=False, repr=False)
class Launch:
    api: api.LaunchAPI
    site: CallSite  # the call that builds the launch (for the decorator form: the decorator's call)
    scope: Scope  # where it is built
    kernels: list[Scope]  # the kernel function(s): several for MPMD bodies or kernels passed in
    kernel_value: Value
    options: dict[str, tuple[ast.expr, Scope, Order]]
    anchor: Span  # where the launch is shown (its callee, or the decorator)
    decorator: DecoratorSite | None = None
    bound_names: tuple[str, ...] = ()  # names the built launch is bound to
    contexts: list[Context] = field(default_factory=list)
    option_sites: dict[str, CallSite] = field(default_factory=dict)  # the call each keyword is written in
    # Built by calling a wrapper (``make(body, interpret=...)``): ((wrapper, this call),), so
    # the wrapper's parameters are read at this call only.
    via: tuple = ()
    # The transformations that reach it (``jax.grad``, ``jax.vmap``...: transforms.Transform).
    transforms: tuple = ()

    def __repr__(self) -> str:
        return f"<Launch {self.api.short} kernel={self.kernel_name} line={self.line}>"

    @property
    def kernel(self) -> Scope | None:
        return self.kernels[0] if self.kernels else None

    @property
    def kernel_name(self) -> str:
        if self.kernel is None:
            return "<kernel>"
        return self.kernel.name if self.kernel.kind != "lambda" else "<lambda>"

    @property
    def line(self) -> int:
        return self.anchor.line


class LaunchFinder:
    def __init__(self, index: ModuleIndex, ev: Evaluator, wrapper_memo: dict | None = None, change=None) -> None:
        self.index = index
        self.ev = ev
        self._wrapper_memo = (wrapper_memo, change)
        self._foreign_wrappers: dict[int, object] = {}  # id(def in another module) -> verdict

    # --- discovery --------------------------------------------------------------------
    def launch_names(self) -> set[str]:
        """Local names that can denote a launch API: the API names, their import aliases,
        and names bound to partials of them (``call = functools.partial(pl.pallas_call, ...)``)."""
        names = set(_LAUNCH_LAST_NAMES)
        calls: list[tuple[str, str, str]] = []
        for _, bp in self.index.parses:
            for kind, name, callee, first in _launch_name_facts(bp):
                if kind == "name":
                    names.add(name)
                else:
                    calls.append((name, callee, first))
        grew = bool(calls)
        while grew:  # names bound to partials of names found so far
            grew = False
            for name, callee, first in calls:
                if name not in names and (callee in names or (callee == "partial" and first in names)):
                    names.add(name)
                    grew = True
        return names

    def find_wrappers(self, names: set[str], memo: dict | None = None, change=None) -> None:
        """Functions that forward their ``*args`` or a parameter to a launch API as the kernel
        (``def kernel(self, *args, **kw): return plgpu.kernel(*args, compiler_params=..., **kw)``):
        calling them launches too. ``memo`` keeps each call's verdict across edits."""
        self.wrappers: dict[int, tuple[api.LaunchAPI, CallSite, str]] = {}
        self.wrapper_verdicts: dict[int, tuple[CallSite, object, object]] = {}
        for cs in self.index.calls_to(names):
            if not cs.node.args:
                continue
            fn = cs.scope
            if fn.kind != "function":
                continue
            old = memo.get(id(cs)) if memo is not None else None
            if old is not None and old[0] is cs and change is not None and old[2].still_valid(change):
                verdict = old[1]
                deps = old[2]
            else:
                deps = Deps() if memo is not None else None
                self.ev.deps = self.index.deps = deps
                verdict = self._wrapper_verdict(cs, fn)
                self.ev.deps = self.index.deps = None
            self.wrapper_verdicts[id(cs)] = (cs, verdict, deps)
            if verdict is not None:
                self.wrappers[id(fn)] = verdict  # type: ignore[assignment]
        for w in list(self.wrappers.values()):
            names.add(w[1].scope.name)

    def _wrapper_verdict(self, cs: CallSite, fn: Scope) -> tuple[api.LaunchAPI, CallSite, str] | None:
        callee = self.ev.value(cs.node.func, cs.scope, self.ev.order_of(cs))
        lapi = api.LAUNCH_APIS.get(callee.name) if isinstance(callee, Ext) else None
        if lapi is None or lapi.name == api.CORE_MAP:
            return None
        first = cs.node.args[0]
        params = {p[0]: p[2] for p in fn.params}
        if isinstance(first, ast.Starred) and isinstance(first.value, ast.Name) \
                and params.get(first.value.id) == "star":
            return (lapi, cs, "*")
        if isinstance(first, ast.Name) and params.get(first.id) in ("normal", "posonly", "kwonly"):
            return (lapi, cs, first.id)
        return None

    def _wrapper_of(self, v: Value) -> tuple[api.LaunchAPI, CallSite, str, Scope] | None:
        fn = v.scope if isinstance(v, FuncVal) else None
        if fn is None:
            return None
        if id(fn) not in self.wrappers:
            if self.ev.other(fn) is self.ev:
                return None
            # A wrapper method of a base class in another module (``self.pallas_call(...)`` in
            # a test class derived from jax's ``ptu.PallasTest``).
            found = self._foreign_wrappers.get(id(fn), ())
            if found == ():
                found = next((w for cs in fn.calls if cs.node.args
                              and (w := self._wrapper_verdict(cs, fn)) is not None), None)
                self._foreign_wrappers[id(fn)] = found
            if found is None:
                return None
            lapi, inner, param = found
            return lapi, inner, param, fn
        lapi, inner, param = self.wrappers[id(fn)]
        return lapi, inner, param, fn

    def _wrapper_kernel(self, cs: CallSite, fn: Scope, param: str) -> ast.expr | None:
        if param == "*":
            pos = cs.positional
            return pos[0] if pos else None
        b = self.ev.bind_param(Invocation(cs, fn, "direct"), param)
        return b.node if b is not None and not b.default else None

    def _from_wrapper_call(self, cs: CallSite, callee: Value) -> Launch | None:
        order = self.ev.order_of(cs)
        w = self._wrapper_of(callee)
        if w is not None:  # self.kernel(body, out_type=...)
            lapi, inner, param, fn = w
            kernel_node = self._wrapper_kernel(cs, fn, param)
            sites = [inner, cs]
        elif isinstance(callee, CallVal) and (w := self._wrapper_of(callee.func)) is not None:
            lapi, inner, param, fn = w  # self.kernel(out_type=...)(body)
            if self._wrapper_kernel(callee.site, fn, param) is not None:
                return None  # calling a built launch
            kernel_node = self.ev.posarg(cs, 0)
            sites = [inner, callee.site]
        else:
            return None
        if kernel_node is None:
            return None
        kval = self.ev.value(kernel_node, cs.scope, order)
        options = self._options(sites)
        return Launch(lapi, cs, cs.scope, self.ev.functions_of(kval), kval, options,
                      _head(self.index.span(cs.node.func, cs.scope)), None,
                      cs.targets if cs.use == "assign" else (), option_sites=self._option_sites(sites),
                      via=((fn, sites[-1]),))

    def items(self) -> list[CallSite | DecoratorSite]:
        """The calls, then the decorators, that may build a launch (in module order; a launch
        found from a call wins over the same launch seen from its decorator)."""
        names = self.launch_names()
        self.find_wrappers(names, *self._wrapper_memo)
        out: list[CallSite | DecoratorSite] = list(self.index.calls_to(names | {"partial"}))
        for _, bp in self.index.parses:
            for d, tail, callee_tail in _decorator_tails(bp):
                if tail in names or callee_tail in names or callee_tail == "partial":
                    out.append(d)
        return out

    def launch_of(self, item: CallSite | DecoratorSite) -> Launch | None:
        return self._from_decorator(item) if isinstance(item, DecoratorSite) else self._from_call(item)

    def fingerprint(self) -> tuple:
        """The module-wide facts every launch's discovery depends on (see incremental.py)."""
        return tuple(sorted((k, v[0].name, id(v[1]), v[2]) for k, v in self.wrappers.items()))

    def _launch_api(self, v: Value) -> tuple[api.LaunchAPI, list[CallSite]] | None:
        """If ``v`` is a launch API (or a partial or factory call of one), the API and the
        call sites whose keyword options apply (outermost first)."""
        sites: list[CallSite] = []
        for _ in range(6):
            if isinstance(v, Ext):
                a = api.LAUNCH_APIS.get(v.name)
                return (a, sites) if a else None
            if isinstance(v, PartialVal):
                sites.insert(0, v.site)
                v = v.func
            elif isinstance(v, CallVal) and isinstance(v.func, (Ext, PartialVal)):
                # A factory call: plgpu.kernel(out_type=...), pl.core_map(mesh), partial(...)(...).
                # A call that already has its kernel built the launch: calling that is not a launch.
                a = self._launch_api(v.func)
                if a is None or self._has_kernel(a[0], a[1] + [v.site]):
                    return None
                return a[0], a[1] + [v.site]
            else:
                return None
        return None

    def _has_kernel(self, lapi: api.LaunchAPI, sites: list[CallSite]) -> bool:
        if lapi.name == api.CORE_MAP:
            return False
        positional = 0
        for i, site in enumerate(sites):
            pos = site.positional
            if i == 0 and site.callee_last == "partial":
                pos = pos[1:]  # partial(pl.pallas_call, ...): the API itself is not an argument
            positional += len(pos)
            if any(k in lapi.kernel_keywords for k in site.keywords):
                return True
        return positional > 0

    def _options(self, sites: list[CallSite]) -> dict[str, tuple[ast.expr, Scope, Order]]:
        opts: dict[str, tuple[ast.expr, Scope, Order]] = {}
        defaults: dict[str, tuple[ast.expr, Scope, Order]] = {}
        for site in sites:
            order = self.ev.order_of(site)
            for k, v in site.keywords.items():
                opts[k] = (v, site.scope, order)
            for k, v in _forwarded_kwargs_set(site).items():
                defaults.setdefault(k, (v, site.scope, order))
        for k, where in defaults.items():
            opts.setdefault(k, where)  # (a caller's own keyword wins over the wrapper's setdefault)
        return opts

    def _option_sites(self, sites: list[CallSite]) -> dict[str, CallSite]:
        out: dict[str, CallSite] = {}
        for site in sites:
            for k in site.keywords:
                out[k] = site
        return out

    def _from_call(self, cs: CallSite) -> Launch | None:
        order = self.ev.order_of(cs)
        callee = self.ev.value(cs.node.func, cs.scope, order)
        found = self._launch_api(callee)
        if found is None:
            return self._from_wrapper_call(cs, callee)
        lapi, sites = found
        kernel_node: ast.expr | None = None
        is_factory_call = bool(sites) and isinstance(callee, CallVal)
        if lapi.name == api.CORE_MAP:
            if not is_factory_call:
                return None  # pl.core_map(mesh) alone: the launch is where it is applied
            kernel_node = self.ev.posarg(cs, 0)
            options = self._options(sites)
            mesh = self.ev.posarg(sites[-1], 0)
            if mesh is not None:
                options.setdefault("mesh", (mesh, sites[-1].scope, self.ev.order_of(sites[-1])))
        elif is_factory_call:
            kernel_node = self.ev.posarg(cs, 0)
            options = self._options(sites)
        else:
            # Direct: pl.pallas_call(kernel, ...) or partial(pl.pallas_call, ...)(kernel, ...)
            pos_offset = 0
            for s in sites:  # positional args bound by partials come first
                pos_offset += len(s.positional[1:])
            kernel_node = self.ev.posarg(cs, 0) if pos_offset == 0 else None
            if kernel_node is None:
                for kw in lapi.kernel_keywords:
                    kernel_node = self.ev.kwarg(cs, kw)
                    if kernel_node is not None:
                        break
            if kernel_node is None and pos_offset:
                first = sites[0]
                kernel_node = self.ev.posarg(first, 1)
            options = self._options(sites + [cs])
            if kernel_node is None:
                return None  # e.g. plgpu.kernel(out_type=...) used as a decorator: found there
            if lapi.name == api.PALLAS_CALL:
                out_shape = self.ev.posarg(cs, 1)
                if out_shape is not None:
                    options.setdefault("out_shape", (out_shape, cs.scope, order))
        if kernel_node is None:
            return None
        kval = self.ev.value(kernel_node, cs.scope, order)
        kernels = self.ev.functions_of(kval)
        site = cs
        anchor = self.index.span(cs.node.func if not is_factory_call else cs.node.func, cs.scope)
        return Launch(lapi, site, cs.scope, kernels, kval, options, _head(anchor), None,
                      cs.targets if cs.use == "assign" else (),
                      option_sites=self._option_sites(sites if is_factory_call or lapi.name == api.CORE_MAP
                                                      else sites + [cs]))

    def _from_decorator(self, d: DecoratorSite) -> Launch | None:
        order = self.ev.order_of(d)
        dec = self.ev.value(d.node, d.scope, order)
        found = self._launch_api(dec)
        if found is None and isinstance(dec, CallVal) and (w := self._wrapper_of(dec.func)) is not None:
            lapi_w, inner, param, fn = w  # @self.kernel(out_type=...)
            if self._wrapper_kernel(dec.site, fn, param) is None:
                found = (lapi_w, [inner, dec.site])
        if found is None and isinstance(dec, PartialVal) and (w := self._wrapper_of(dec.func)) is not None:
            lapi_w, inner, param, fn = w  # @functools.partial(self.pallas_call, out_shape=...)
            if param == "*" and len(dec.site.positional) == 1:
                found = (lapi_w, [inner, dec.site])
        if found is None:
            return None
        lapi, sites = found
        if not sites:
            return None  # a bare @pl.pallas_call is not how the API is used
        options = self._options(sites)
        if lapi.name == api.CORE_MAP:
            mesh = self.ev.posarg(sites[-1], 0)
            if mesh is not None:
                options.setdefault("mesh", (mesh, sites[-1].scope, self.ev.order_of(sites[-1])))
        # The kernel: the def with the decorators below this one applied.
        inner: Value = FuncVal(d.target)
        full = self.ev.def_value(d.target)
        v = full
        while isinstance(v, Decorated):
            if v.site is d:
                inner = v.inner
                break
            v = v.inner
        kernels = self.ev.functions_of(inner)
        anchor = self.index.span(d.node, d.scope)
        return Launch(lapi, sites[-1], d.scope, kernels, inner, options, _head(anchor), d,
                      (d.target.name,) if lapi.name != api.CORE_MAP else (), option_sites=self._option_sites(sites))


def _block_fact(bp, key: str, compute) -> list:
    """A fact derived from every binding of a block (``compute(name, bindings, out)``)."""
    def collect(bp) -> list:
        out: list = []
        for s in bp.scopes():
            for name, bs in s.bindings.items():
                compute(name, bs, out)
        return out

    return bp.fact(key, collect)


def _launch_name_facts(bp) -> list[tuple[str, str, str, str]]:
    """A block's bindings that can make a name denote a launch API (see launch_names)."""
    def compute(name: str, bs: list, out: list) -> None:
        for b in bs:
            if b.kind == "import" and api.canonical(b.qualified) in api.LAUNCH_APIS:
                out.append(("name", name, "", ""))
            elif b.kind == "assign" and isinstance(b.node, (ast.Attribute, ast.Name)) \
                    and _tail(b.node) in _LAUNCH_LAST_NAMES:
                out.append(("name", name, "", ""))  # _kernel = plgpu.kernel
            elif b.kind == "assign" and isinstance(b.node, ast.Call):
                first = _tail(b.node.args[0]) if b.node.args else ""
                out.append(("call", name, _callee_tail(b.node), first))

    return _block_fact(bp, "launch_names", compute)


def _decorator_tails(bp) -> list[tuple[DecoratorSite, str, str]]:
    """A block's decorators with the last names of the decorator and of what it calls."""
    return bp.fact("decorator_tails", lambda bp: [(d, _tail(d.node), _callee_tail(d.node)) for d in bp.decorators()])


_SETTERS = (api.FORCE_GPU_INTERPRET, api.SET_GPU_INTERPRET, api.FORCE_TPU_INTERPRET, api.SET_TPU_INTERPRET)


def _setter_import_names(bp) -> list[str]:
    """Names a block binds by importing a force_*/set_* interpret-mode function."""
    def compute(name: str, bs: list, out: list) -> None:
        if any(b.kind == "import" and api.canonical(b.qualified) in _SETTERS for b in bs):
            out.append(name)

    return _block_fact(bp, "setter_imports", compute)


def _tail(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _callee_tail(node: ast.AST) -> str:
    while isinstance(node, ast.Call):
        node = node.func
    return _tail(node)


def _head(span: Span) -> Span:
    """Only the first line of a multi-line span (keeps launch anchors short)."""
    if span.end_line == span.line:
        return span
    return Span(span.line, span.col, span.line, span.col + 1)


# --- contexts ---------------------------------------------------------------------------
@dataclass(eq=False)
class Setter:
    """A force_*/set_* interpret-mode call and the context it imposes."""

    site: CallSite
    kind: str  # "with", "set", or "reset" (a set_ call with a falsy value: interpret mode off)
    context: Context | None
    with_site: object = None
    # For "set"/"reset": the calls that make it happen, in each scope that runs it: the call
    # itself, then each call of the helper it is in, of that helper's callers, ... (innermost
    # first), each with the positions of the calls inside it that lead to the set, which order
    # two sets made through one call.
    points: tuple = ()


_SETTER_WORDS = frozenset({"force_gpu_interpret_mode", "set_gpu_interpret_mode", "force_tpu_interpret_mode",
                           "set_tpu_interpret_mode"})
# A test case's ``self.enter_context(cm)`` (absltest) / ``self.enterContext(cm)`` (unittest, 3.11+):
# enters ``cm`` there and exits it when the test's cleanups run.
_ENTER_CONTEXT = frozenset({"enter_context", "enterContext", "enterClassContext"})
# What a test runner calls before each test method (unittest, pytest), and the methods it runs as tests.
_PER_TEST_SETUP = frozenset({"setUp", "setup_method", "setUpClass", "setup_class"})
_TEST_PREFIX = "test"


def _forwarded_kwargs_set(site: CallSite) -> dict[str, ast.expr]:
    """The keywords a wrapper adds to the ``**kwargs`` it forwards to this call, in its own body:
    ``kwargs.setdefault("compiler_params", plgpu.CompilerParams())`` (a test base class forcing
    a backend). Only string-literal keys; ``kwargs["k"] = v`` is read the same way."""
    node, fn = site.node, site.scope
    if not isinstance(node, ast.Call) or fn is None or fn.kind != "function" or fn.node is None:
        return {}
    names = {kw.value.id for kw in node.keywords if kw.arg is None and isinstance(kw.value, ast.Name)}
    if not names:
        return {}
    out: dict[str, ast.expr] = {}
    for stmt in ast.walk(fn.node):
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "setdefault" \
                and isinstance(call.func.value, ast.Name) and call.func.value.id in names and len(call.args) == 2 \
                and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
            out.setdefault(call.args[0].value, call.args[1])
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript):
            target = stmt.targets[0]
            if isinstance(target.value, ast.Name) and target.value.id in names \
                    and isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str):
                out[target.slice.value] = stmt.value
    return out


class ContextResolver:
    def __init__(self, index: ModuleIndex, ev: Evaluator, launches: list[Launch],
                 release: JaxRelease = JaxRelease()) -> None:
        self.index = index
        self.release = release  # (its GPU lowering defaults decide a plain GPU pallas_call's backend)
        self.ev = ev
        self.launches = launches
        self._cover_cache: dict[tuple[int, int], bool] = {}
        # (read site, setter) covered for some of the test classes that run it, not all (the
        # others read the mode the launch is built with: it stays one of its contexts).
        self._partly_covered: set[tuple[int, int]] = set()
        self._met_partial_set_up = False  # (while one _covered question is answered)
        # (The launches' kernels, for _in_a_kernel: kept with the list they came from, which
        # the engine sets again once it has found every launch.)
        self._kernel_ids: tuple[list, set[int]] | None = None
        self._launch: Launch | None = None  # the launch whose interpret= is being classified
        self.setters = self._find_setters()
        self.lowerings = self._find_lowerings()
        self.transforms = TransformFinder(index, ev)
        self.cpu_pins = find_cpu_pins(index, ev)

    # --- force/set ------------------------------------------------------------------------
    def _find_setters(self) -> list[Setter]:
        """The force_ blocks and set_ calls that put launches in an interpret mode (the
        resets, set_ calls that turn it off, go to ``self._resets``): this module's, and those
        of helpers in the workspace modules it imports that take effect here (a helper in
        ``debug_utils.py`` calling ``set_gpu_interpret_mode()``, called before a build here)."""
        self._resets: list[Setter] = []
        out = self._setters_in(self.index, self.ev)
        program = self.ev.program
        if program is None or not self.index.path:
            return out
        for path in sorted(program.imports_with_packages(self.index.path)):
            if path == self.index.path or not program.mentions(path, _SETTER_WORDS):
                continue
            index, ev = program.index(path), program.evaluator(path)
            if index is None or ev is None:
                continue
            resets_before = len(self._resets)
            found = [s for s in self._setters_in(index, ev) if self._takes_effect_here(s)]
            self._resets[resets_before:] = [s for s in self._resets[resets_before:] if self._takes_effect_here(s)]
            out += found
        return out

    def _takes_effect_here(self, setter: Setter) -> bool:
        """Whether another module's setter reaches this module: a call here leads to the set_,
        or a `with` here enters the force_ block."""
        if setter.kind == "with":
            return self.index.path_of(setter.with_site.scope) == self.index.path
        return any(self.index.path_of(point.scope) == self.index.path for point, _ in setter.points)

    def _setters_in(self, index: ModuleIndex, ev: Evaluator) -> list[Setter]:
        """The setters written in one module (``index``, read with its own evaluator)."""
        out: list[Setter] = []
        names = set(_SETTER_WORDS)
        for _, bp in index.parses:
            names.update(_setter_import_names(bp))
        elsewhere = index.path != self.index.path
        for cs in index.calls_to(names):
            fn = ev.ext_name(ev.value(cs.node.func, cs.scope, ev.order_of(cs)))
            if fn not in (api.FORCE_GPU_INTERPRET, api.SET_GPU_INTERPRET, api.FORCE_TPU_INTERPRET,
                          api.SET_TPU_INTERPRET):
                continue
            gpu = fn in (api.FORCE_GPU_INTERPRET, api.SET_GPU_INTERPRET)
            if self.release.lacks_api(fn):
                # (the checked release has no such function: the program stops at this call, so
                # what it would decide is not known and the launches it covers stay quiet)
                out.append(Setter(cs, "set", Context(Mode.UNKNOWN, (Evidence(index.span(cs.node, cs.scope),
                                  cs.callee_last + "()"),)), points=self._set_points(cs)))
                continue
            params = ev.posarg(cs, 0)
            if params is None:
                params = ev.kwarg(cs, "params")
            span = index.span(cs.node, cs.scope)
            short = ("plgpu." if gpu else "pltpu.") + cs.callee_last + "()"
            where = Evidence(span, short, index.path if elsewhere else None)
            setting = fn in (api.SET_GPU_INTERPRET, api.SET_TPU_INTERPRET)
            if params is None:
                ctx = Context(Mode.GPU_INTERPRET if gpu else Mode.TPU_INTERPRET, (where,),
                              inline_mgpu="error", forced=True, params_site=cs)
            else:
                ctx = self.classify(params, cs.scope, ev.order_of(cs), span, short)
                if ctx is None or ctx.mode in (Mode.UNKNOWN,):
                    continue
                if not ctx.mode.is_interpret:
                    if setting:  # set_*(None): interpret mode off again from here on
                        self._resets.append(Setter(cs, "reset", None, points=self._set_points(cs)))
                    continue  # force_*(None): no forcing
                ctx = Context(ctx.mode, (where,) + ctx.evidence[1:], ctx.certain, ctx.inline_mgpu,
                              forced=True, params_site=ctx.params_site)
            if setting:
                out.append(Setter(cs, "set", ctx, points=self._set_points(cs)))
                continue
            entered = self._entered_by_test_case(cs)
            if entered is not None:  # in effect from there until the test ends, as a set_ is
                out.append(Setter(cs, "set", ctx, points=self._set_points(entered)))
                continue
            # A force_ call does something only where a `with` enters it: its own, or those
            # that enter a helper returning it or wrapping it (a contextlib.contextmanager).
            withs = [w for w in [self._with_of(cs)] if w is not None]
            withs = [w for w in withs if not _yields_inside(w)] + self._helper_withs(cs, withs)
            for with_site in withs:
                out.append(Setter(cs, "with", ctx, with_site))
        return out

    @staticmethod
    def _entered_by_test_case(cs: CallSite) -> CallSite | None:
        """The ``self.enter_context(...)`` call a force_ call is passed to, if any."""
        for call in cs.scope.calls:
            func = call.node.func
            if call.callee_last in _ENTER_CONTEXT and isinstance(func, ast.Attribute) \
                    and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls") \
                    and any(a is cs.node for a in call.node.args):
                return call
        return None

    def _set_points(self, cs: CallSite) -> tuple:
        """Where a set_ call takes effect, scope by scope (Setter.points): the call itself,
        and each call of the function holding it, up the callers (a helper that sets the
        mode, called before a launch is built, sets it for that launch)."""
        points = [(cs, ())]
        frontier = [(cs, ())]
        seen: set[int] = set()
        for _ in range(_MAX_CALLER_DEPTH):
            later = []
            for site, inner in frontier:
                fn = _enclosing_function(site.scope)
                if fn is None or id(fn) in seen:
                    continue
                seen.add(id(fn))
                inside = (self.ev.other(site.scope).order_of(site),) + inner
                later += [(inv.site, inside) for inv in self.ev.callers_of(fn) if inv.how != "passed"]
            points += later
            frontier = later
        return tuple(points)

    def _helper_withs(self, cs: CallSite, own: list) -> list:
        """The `with` statements that enter a force_ call through a helper: a function that
        returns the call (``with debugging():``), or a generator that yields inside the call's
        own `with` (a ``contextlib.contextmanager``), and helpers of those, a few calls up."""
        out: list = []
        seen: set[int] = set()
        frontier = [(cs, own)]
        for _ in range(_MAX_CALLER_DEPTH):
            later = []
            for site, withs in frontier:
                fn = _enclosing_function(site.scope)
                if fn is None or id(fn) in seen:
                    continue
                returned = site.node in fn.returns or any(_yields_inside(w) for w in withs)
                if not returned:
                    continue
                seen.add(id(fn))
                for inv in self.ev.callers_of(fn):
                    if inv.how != "direct":
                        continue
                    w = self._with_of(inv.site)
                    if w is not None:
                        out.append(w)
                    elif inv.site.node in (_enclosing_function(inv.site.scope) or inv.site.scope).returns:
                        later.append((inv.site, []))
            frontier = later
        return out

    def _last_set_before(self, site: CallSite) -> Setter | None:
        """The set_ call (or reset) made last before ``site`` in ``site``'s own scope, directly
        or through the helpers called there; None if none is."""
        order = self.ev.other(site.scope).order_of(site)
        return self._last_set_in(site.scope, order) if order is not None else None

    def _last_set_in(self, scope: Scope, order: Order | None = None) -> Setter | None:
        """The set_ call (or reset) made last in ``scope`` before ``order`` (None: by the end of
        ``scope``), directly or through the helpers called there; None if none is."""
        best: tuple | None = None
        for setter in self.setters + self._resets:
            for point, inner in setter.points:
                if not _same_level(point.scope, scope, self.index):
                    continue
                at = self.ev.other(point.scope).order_of(point)
                if at is None or (order is not None and not at < order):
                    continue
                key = (at,) + inner
                if best is None or key > best[0]:
                    best = (key, setter)
        return best[1] if best is not None and best[1].kind != "with" else None

    def _with_of(self, cs: CallSite):
        for w in cs.scope.withs:
            for item in w.node.items:
                if item.context_expr is cs.node:
                    return w
        return None

    def _covered(self, site: CallSite, setter: Setter, depth: int = 0, seen: set | None = None) -> bool:
        """Whether ``site`` runs inside the dynamic extent of ``setter``."""
        if seen is None:
            key = (id(site), id(setter))
            hit = self._cover_cache.get(key)
            if hit is None:
                self._met_partial_set_up = False
                hit = self._covered(site, setter, 0, set())
                self._cover_cache[key] = hit
                if hit and self._met_partial_set_up:
                    self._partly_covered.add(key)
            return hit
        if setter.kind == "with":
            if setter.with_site in site.withs:
                return True
        else:
            last = self._last_set_before(site)
            if last is not None:  # (the last set_ made before the read in its scope decides)
                return last is setter
        if depth >= _MAX_CALLER_DEPTH:
            return False
        fn = site.scope
        while fn is not None and fn.kind not in ("function", "lambda"):
            if fn.kind == "module":
                return False
            fn = fn.parent
        if fn is None or id(fn) in seen:
            return False
        seen.add(id(fn))
        if setter.kind == "set" and fn.name.startswith(_TEST_PREFIX):
            set_up = self._set_up_covers(fn, setter)
            if set_up is not None:
                self._met_partial_set_up = self._met_partial_set_up or set_up == "some"
                return True
        for inv in self.ev.callers_of(fn):
            if self._covered(inv.site, setter, depth + 1, seen):
                return True
        return False

    def _set_up_covers(self, test: Scope, setter: Setter) -> str | None:
        """Whether the per-test setup (``setUp``...) the runner calls before the test method
        ``test`` leaves ``setter`` in effect: "all" for every class that runs the test (its
        class and the subclasses that inherit it), "some" for some of them, None for none."""
        cls_scope = self.ev.enclosing_class(test)
        ref = classes.class_of(self.ev, cls_scope) if cls_scope is not None else None
        if ref is None:
            return None
        set_ups = [p.scope for p, _ in setter.points
                   if p.scope.name in _PER_TEST_SETUP and self.ev.enclosing_class(p.scope) is not None]
        if not set_ups:
            return None
        resets = [p.scope for r in self._resets for p, _ in r.points if p.scope.name in _PER_TEST_SETUP]
        runners = [ref] + [c for c in classes.subclasses(ref) if classes.runs_method(c, test)]

        def left_in_effect(cls: classes.ClassRef, by: Setter, scopes: list[Scope]) -> bool:
            return any(self._runs_before_tests_of(cls, s) and self._last_set_in(s) is by for s in scopes)

        covered = [c for c in runners if left_in_effect(c, setter, set_ups)
                   and not any(left_in_effect(c, r, resets) for r in self._resets)]
        if not covered:
            return None
        return "all" if len(covered) == len(runners) else "some"

    def _runs_before_tests_of(self, cls: classes.ClassRef, set_up: Scope) -> bool:
        """Whether the runner calls the setup method ``set_up`` for the tests of ``cls``: it is
        defined in ``cls`` or a base, and ``cls`` does not override it without super()."""
        owner_scope = self.ev.enclosing_class(set_up)
        owner = classes.class_of(self.ev, owner_scope) if owner_scope is not None else None
        return owner is not None and classes.is_subclass(cls, owner) and classes.runs_method(cls, set_up)

    def _read_sites(self, launch: Launch) -> list[CallSite]:
        """Where the mode is read: the build call, or for plgpu.kernel each call of the built kernel."""
        if launch.api.reads_mode_at == "build":
            return [launch.site]
        sites: list[CallSite] = []
        # plgpu.kernel(...)(x): the enclosing call applies it at once.
        for cs in launch.scope.calls:
            if cs.node.func is launch.site.node and launch.decorator is None:
                sites.append(cs)
        for name in launch.bound_names:
            for cs in self.ev.calls_named(name):
                sites.append(cs)
        return sites or [launch.site]

    # --- explicit lowering for a platform ------------------------------------------------
    def _find_lowerings(self) -> list[tuple[CallSite, Span, str]]:
        """``jax.jit(f).trace(...).lower(lowering_platforms=(P,))``, ``jax.export(f,
        platforms=(P,))`` and ``pl.lower_as_mlir(f, ..., platforms=[P])`` for a platform P:
        (the call, the platforms argument, P)."""
        out = []
        for cs in self.index.calls_to(("export", "lower", "lower_as_mlir")):
            if cs.callee_last == "lower":
                arg = self.ev.kwarg(cs, "lowering_platforms")
            elif cs.callee_last in ("export", "lower_as_mlir"):
                arg = self.ev.kwarg(cs, "platforms")
            else:
                continue
            if arg is None:
                if cs.callee_last == "lower_as_mlir" and \
                        self.ev.called_api(self.ev.value(cs.node, cs.scope, self.ev.order_of(cs))) == api.LOWER_AS_MLIR:
                    # (Its platforms default to ["tpu"]: jax/_src/pallas/core.py, lower_as_mlir.)
                    out.append((cs, self.index.span(cs.node, cs.scope), "tpu"))
                continue
            v = self.ev.value(arg, cs.scope, self.ev.order_of(cs))
            plats = []
            if isinstance(v, TupleVal):
                plats = [self.ev.const(n, s, o) for n, s, o in v.items]
            elif isinstance(v, Const):
                plats = [v.value]
            platform = next((p for p in ("cuda", "rocm", "tpu", "cpu") if p in plats), None)
            if platform is not None:
                out.append((cs, self.index.span(arg, cs.scope), platform))
        return out

    def _lowered_launches(self) -> dict[int, tuple[Span, str]]:
        """Launches that an explicit lowering compiles: the platforms argument and the platform."""
        result: dict[int, tuple[Span, str]] = {}
        if not self.lowerings:
            return result
        for cs, span, platform in self.lowerings:
            for fv in self._lowered_values(cs):
                for launch in self._launches_under(fv):
                    result.setdefault(id(launch), (span, platform))
        return result

    def _lowered_values(self, cs: CallSite) -> list[Value]:
        """The function(s) a ``X.trace(...).lower(...)`` / ``jax.export(f, ...)`` lowers."""
        node: ast.AST = cs.node.func
        order = self.ev.order_of(cs)
        if cs.callee_last in ("export", "lower_as_mlir") and cs.positional:
            return [self._through_vmap(self.ev.value(cs.positional[0], cs.scope, order))]
        out: list[Value] = []
        while isinstance(node, ast.Attribute):
            node = node.value
            if isinstance(node, ast.Call):
                v = self.ev.value(node.func, cs.scope, order)
                name = self.ev.called_api(v) if isinstance(v, CallVal) else None
                if isinstance(v, Ext) and v.name == api.JIT and node.args:
                    out.append(self.ev.value(node.args[0], cs.scope, order))
                    break
                if name == api.JIT and isinstance(v, CallVal) and v.site.positional:
                    out.append(self.ev.value(v.site.positional[0], cs.scope, order))
                    break
                node = node.func
            else:
                out.append(self.ev.value(node, cs.scope, order))
                break
        return out

    def _through_vmap(self, v: Value) -> Value:
        """``jax.jit(jax.vmap(f))`` -> ``f``: lowering a batched function lowers what it batches."""
        for _ in range(4):
            v = through_wrappers(self.ev, v)
            if not (isinstance(v, CallVal) and self.ev.called_api(v) == "jax.vmap" and v.site.positional):
                break
            v = self.ev.value(v.site.positional[0], v.site.scope, v.order)
        return v

    def _launches_under(self, v: Value) -> list[Launch]:
        # A built launch bound to a name: match by the name's binding value (through
        # ``jax.jit(launch)`` and ``functools.partial(launch, ...)``).
        v = through_wrappers(self.ev, v)
        hits = [launch for launch in self.launches if is_built_launch(v, launch)]
        if hits:
            return hits
        fn = self.ev.function_of(v)
        if fn is None:
            return []
        reached = self._forward(fn)
        return [launch for launch in self.launches if _enclosing_function(launch.scope) is not None
                and id(_enclosing_function(launch.scope)) in reached or id(launch.scope) in reached]

    def _forward(self, fn: Scope, limit: int = 200) -> set[int]:
        seen = {id(fn)}
        todo = [fn]
        while todo and len(seen) < limit:
            s = todo.pop()
            for sub in s.walk():
                seen.add(id(sub))
                for cs in sub.calls:
                    t = self.ev.function_of(self.ev.value(cs.node.func, cs.scope, self.ev.order_of(cs)))
                    if t is not None and id(t) not in seen:
                        seen.add(id(t))
                        todo.append(t)
        return seen

    # --- resolution -------------------------------------------------------------------
    @property
    def module_wide(self) -> bool:
        """Whether the module has force_/set_ calls, explicit lowerings or CPU pins: facts that tie every
        launch's contexts to the rest of the module (no launch result is kept across edits).
        (Transformations are worked out on every analysis, and a reused launch that they
        reach differently is a change: engine.py.)"""
        return bool(self.setters or self.lowerings or self.cpu_pins)

    def resolve(self, launch: Launch, lowering: tuple[Span, str] | None) -> list[Context]:
        out = ContextSet()
        reads = self._read_sites(launch) if self.setters else []
        uncovered = list(reads)
        for setter in self.setters:
            hit = [r for r in reads if self._covered(r, setter)]
            if hit:
                out.add(setter.context)
                whole = [r for r in hit if (id(r), id(setter)) not in self._partly_covered]
                uncovered = [r for r in uncovered if r not in whole]
        explicit: list[Context] = []
        if uncovered or not out.contexts:
            explicit = self.explicit(launch, lowering)
            for c in explicit:
                out.add(c)
        contexts = out.contexts
        stopped = self._stopped_by_missing_setter(launch)
        if stopped is not None:
            return [stopped]
        host = self._cpu_host(launch, reads, uncovered) if self.setters or self.cpu_pins else None
        if host is not None:
            evidence, host_span, add, reason = host
            if add and not explicit:  # (every read is covered: the compiled call is another one)
                for c in self.explicit(launch, lowering):
                    if c.mode != Mode.UNKNOWN and not c.mode.is_interpret:
                        contexts.append(c)
            contexts = [replace(c, evidence=evidence + c.evidence, cpu_host=True, host_span=host_span,
                                host_reason=reason)
                        if c.compiled_on_this_host else c for c in contexts]
        return contexts

    def _stopped_by_missing_setter(self, launch: Launch) -> Context | None:
        """The unknown context of a force_/set_ call the checked release lacks that covers where
        the launch is used: the program stops at that call before the launch runs."""
        missing = [s for s in self.setters if s.context.mode == Mode.UNKNOWN]
        if not missing:
            return None
        used = self._applications(launch) if launch.api.reads_mode_at == "build" else [launch.site]
        return next((s.context for s in missing if any(self._covered(u, s) for u in used)), None)

    def _cpu_host(self, launch: Launch, reads: list[CallSite], uncovered: list[CallSite]):
        """Why the launch's compiled contexts run on a CPU host, if the code says so (see
        hosts.py): (evidence, the line that is the mistake or None, whether a compiled context
        must be added because a call of the launch escapes a setter that covers the others,
        the reason: "setter" or "pinned")."""
        short = launch.api.short
        verb = "built" if launch.api.reads_mode_at == "build" else "called"  # (where it reads its setting)
        covering = [s for s in self.setters if any(self._covered(r, s) for r in reads)]
        for setter in self.setters if not covering else ():
            if setter.context.mode == Mode.UNKNOWN:
                continue  # (a function the checked release lacks: the program stops there)
            # A setter that misses every read but covers the launch's use: it has no effect.
            used = self._applications(launch) if launch.api.reads_mode_at == "build" else [launch.site]
            if any(self._covered(u, setter) for u in used):
                note = f"`{setter.context.decided_by}`, which does not cover where `{short}` is {verb}"
                span = self._mistake_span(setter, used)
                return (Evidence(span, note),), span, False, "setter"
        # Some calls run inside a setter and some outside: the outside ones are compiled.
        escaping = self._escaping_calls(launch, covering, uncovered)
        if escaping is not None:
            site, setter = escaping
            span = self.index.span(site.node, site.scope)
            note = (f"a call outside the `{setter.context.decided_by}` of line {setter.context.mode_line}, which "
                    f"the other calls run in")
            return (Evidence(span, note),), span, True, "setter"
        if self.cpu_pins:
            pin = self.cpu_pins[0]
            return (Evidence(pin.span, pin.note),), None, False, "pinned"
        return None

    def _mistake_span(self, setter: Setter, used: list[CallSite]) -> Span:
        """Where a setter that misses the launch is shown: the force_/set_ call itself, or for
        a set_ made through a helper, the call of that helper beside the launch's use (in
        this module: the helper may be elsewhere)."""
        here = [p for p, _ in setter.points if self.index.path_of(p.scope) == self.index.path]
        beside = [p for p in here if any(_same_level(p.scope, u.scope, self.index) for u in used)]
        point = (beside or here or [None])[-1]
        if point is None or point is setter.site:
            return setter.context.evidence[0].span
        return self.index.span(point.node, point.scope)

    def _applications(self, launch: Launch) -> list[CallSite]:
        """Where a built launch is applied: ``built(x)`` for each name it is bound to."""
        return applied_at(self.ev, launch, chained=False, handed_on=True)

    def _applies(self, cs: CallSite, launch: Launch) -> bool:
        return applies(self.ev, cs, launch)

    def _escaping_calls(self, launch: Launch, covering: list[Setter], uncovered: list[CallSite]):
        """A call that reads the mode outside every setter while another call of the same
        launch reads it inside one of ``covering``: (the escaping call, that setter)."""
        if not covering:
            return None
        if launch.api.reads_mode_at == "call":
            escaping = [r for r in uncovered if r is not launch.site and self._applies(r, launch)]
            return (escaping[0], covering[0]) if escaping else None
        # Built inside a function: each of its calls is a read of its own (jax.jit retraces when
        # the interpret setting changes: it is part of the cache key).
        fn = launch.site.scope
        while fn is not None and fn.kind not in ("function", "lambda"):
            fn = fn.parent if fn.kind != "module" else None
        if fn is None:
            return None
        calls = [inv.site for inv in self.ev.callers_of(fn) if inv.site.scope is not None
                 and self.index.path_of(inv.site.scope) == self.index.path_of(fn)]
        inside = [c for c in calls if any(self._covered(c, s) for s in covering)]
        outside = [c for c in calls if not any(self._covered(c, s) for s in self.setters)]
        if inside and outside:
            return outside[0], next(s for s in covering if self._covered(inside[0], s))
        return None

    def explicit(self, launch: Launch, lowering: tuple[Span, str] | None) -> list[Context]:
        opt = launch.options.get("interpret")
        anchor = launch.anchor
        if opt is None:
            return [self.compiled(launch, lowering)]
        node, scope, order = opt
        span = self.index.span(node, scope)
        note = f"interpret={self.index.code_of(node, scope)}"
        results: list[Context] = []
        self._launch = launch  # (``self.X`` in a wrapper method means the caller's instance)
        try:
            found = self.classify_all(node, scope, order, span, note, via=launch.via)
        finally:
            self._launch = None
        for ctx in found:
            if ctx.mode == Mode.COMPILED:
                c = self.compiled(launch, lowering, ctx.evidence)
                results.append(replace(c, via=ctx.via, self_class=ctx.self_class, caller=ctx.caller,
                                       cpu_host=c.cpu_host or ctx.cpu_host,
                                       host_reason=c.host_reason or ctx.host_reason))
            else:
                # The launch's own keyword decides when the value is written right there.
                direct = ctx.mode_line == span.line and not ctx.caller
                results.append(replace(ctx, from_launch_keyword=direct))
        results = [self._with_kernels(launch, c) for c in results]
        if not results:
            return [Context(Mode.UNKNOWN, (Evidence(anchor, "launch"),))]
        # A test skipped in a context (``if self.INTERPRET: self.skipTest(...)``) never launches
        # there: at the launch, or at a call on the way to it (a test calling a helper).
        return [c for c in results
                if not any(skips.skipped(self.ev, site, c.self_class)
                           for site in [launch.site] + [s for _, s in c.via])]

    def reached_on_cpu_host(self, launch: Launch, ctx: Context) -> bool:
        """Whether a context of the launch may run on a CPU-only host: no branch on the host
        (``if on_gpu:``, ``if jax.default_backend() == "cpu": return ...``, a test skipped on
        CPU) keeps it away, at the launch or at a call on the way to it."""
        if self._in_a_kernel(launch.site.scope):
            return False
        sites = [launch.site] + [s for _, s in ctx.via]
        if any(skips.skipped(self.ev, site, ctx.self_class, host="cpu", via=ctx.via) for site in sites):
            return False
        return bool(ctx.via) or self._called_on_cpu_host(launch.site.scope, 0)

    def _called_on_cpu_host(self, scope: Scope, depth: int, seen: frozenset = frozenset()) -> bool:
        """Whether the function around ``scope`` may be called on a CPU host: it is not a
        function, it has no caller here (an API: anyone may call it), or one of its calls (or
        the places it is passed on from) is not kept off CPU hosts (a helper called only by
        tests skipped there is not)."""
        if self._in_a_kernel(scope):
            return False  # (a core_map in a kernel body is part of that kernel, lowered with it)
        fn = _enclosing_function(scope)
        if fn is None:
            return True
        if id(fn) in seen:
            return False  # (a cycle: the way in is judged where it starts)
        if depth > 4:
            return True
        seen = seen | {id(fn)}
        owner = classes.class_of(self.ev, fn.parent) if fn.parent is not None and fn.parent.kind == "class" else None
        if owner is not None and skips.class_skipped(self.ev, owner, "cpu"):
            return False  # (a method of a test class skipped there: its tests call it)
        callers = self.ev.callers_of(fn)
        if not callers:
            # (A def nested in a function, returned or passed on, exists only once that runs.)
            outer = _enclosing_function(fn.parent)
            return outer is None or self._called_on_cpu_host(fn.parent, depth + 1, seen)
        for inv in callers:
            site = inv.site
            rule = self._differentiated(site) if inv.how == "passed" else None
            if rule is not None:  # (``f.defvjp(fwd, bwd)``: fwd and bwd run where f runs)
                if self._called_on_cpu_host(rule, depth + 1, seen):
                    return True
            elif site.scope.kind == "class":  # (passed in a class body: its tests' decorator parameters)
                ref = classes.class_of(self.ev, site.scope)
                if ref is None or not skips.class_skipped(self.ev, ref, "cpu"):
                    return True
            elif any(self._covered(site, setter) for setter in self.setters):
                continue  # (called inside a force_/set_ interpret mode: interpreted there)
            elif (not skips.skipped(self.ev, site, None, host="cpu")
                  and self._called_on_cpu_host(site.scope, depth + 1, seen)):
                return True
        return False

    def _differentiated(self, site: CallSite) -> Scope | None:
        """For ``f.defvjp(fwd, bwd)`` / ``f.defjvp(jvp)`` passing a function: ``f``'s function."""
        func = site.node.func
        if not isinstance(func, ast.Attribute) or func.attr not in ("defvjp", "defjvp"):
            return None
        return self.ev.function_of(self.ev.value(func.value, site.scope, self.ev.order_of(site)))

    def _in_a_kernel(self, scope: Scope | None) -> bool:
        """Whether ``scope`` lies in the body of a kernel of one of the module's launches."""
        if self._kernel_ids is None or self._kernel_ids[0] is not self.launches:
            self._kernel_ids = (self.launches, {id(k) for other in self.launches for k in other.kernels})
        kernels = self._kernel_ids[1]
        while scope is not None:
            if id(scope) in kernels:
                return True
            scope = scope.parent
        return False

    def _with_kernels(self, launch: Launch, ctx: Context) -> Context:
        """A context that came through a caller's call runs the kernel that same call passes
        (``make(body_a)`` compiled, ``make(body_b, interpret=...)`` interpreted)."""
        if not ctx.via or len(launch.kernels) < 2:
            return ctx
        mine = self.ev.functions_of(launch.kernel_value, via=ctx.via)
        if not mine or len(mine) == len(launch.kernels):
            return ctx
        return replace(ctx, kernels=tuple(mine))

    def compiled(self, launch: Launch, lowering: tuple[Span, str] | None, evidence=()) -> Context:
        """The compiled context: the backend from the code where it says (``plgpu.kernel``, a
        mesh, compiler params, ``backend=``, TPU memory spaces in the BlockSpecs or scratch, a
        ``PrefetchScalarGridSpec``, an explicit lowering for a platform), else COMPILED."""
        if lowering is not None and lowering[1] == "cpu":  # (compiled for a CPU: no backend's own rule)
            return Context(Mode.COMPILED, (Evidence(lowering[0], 'lowering_platforms=("cpu",)'),) + tuple(evidence),
                           lowered_for="cpu", cpu_host=True, host_reason="lowered")
        mode, semantics = Mode.COMPILED, None
        name = launch.api.name
        why = ""
        if name == api.PLGPU_KERNEL:
            mode = Mode.MOSAIC_GPU
        else:
            mesh = launch.options.get("mesh")
            params = launch.options.get("compiler_params")
            for opt, table in ((mesh, {**{m: Mode.MOSAIC_GPU for m in api.GPU_MESHES},
                                       **{m: Mode.TPU for m in api.TPU_MESHES}}),
                               (params, {**{m: Mode.MOSAIC_GPU for m in api.GPU_COMPILER_PARAMS},
                                         **{m: Mode.TRITON for m in api.TRITON_COMPILER_PARAMS},
                                         **{m: Mode.TPU for m in api.TPU_COMPILER_PARAMS}})):
                if opt is None:
                    continue
                v = self.ev.value(*opt)
                n = self.ev.called_api(v) or self.ev.ext_name(v)
                if n in table:
                    mode = table[n]
                    break
            if mode == Mode.COMPILED and name == api.PALLAS_CALL:
                mode, why = self._pallas_call_backend(launch, lowering)
        if mode == Mode.MOSAIC_GPU:
            semantics = self._lowering_semantics(launch)
        ev = list(evidence)
        if lowering is not None:
            ev.insert(0, Evidence(lowering[0], f'lowering_platforms=("{lowering[1]}",)'))
        elif not ev:
            ev.append(Evidence(launch.anchor, f"{launch.api.short} without interpret{why}"))
        return Context(mode, tuple(ev), cuda_lowering=lowering is not None and lowering[1] == "cuda",
                       lowered_for=lowering[1] if lowering is not None else None, lowering_semantics=semantics)

    def _pallas_call_backend(self, launch: Launch, lowering: tuple[Span, str] | None) -> tuple[Mode, str]:
        """A ``pl.pallas_call``'s backend from what it is given, or from where it is lowered
        (on a GPU a pallas_call without Mosaic GPU params is lowered by Triton)."""
        ev = self.ev
        opt = launch.options.get("backend")
        if opt is not None:
            value = ev.const(*opt)
            by_name = {"triton": Mode.TRITON, "mosaic_tpu": Mode.TPU, "mosaic_gpu": Mode.MOSAIC_GPU}
            if value in by_name:
                return by_name[value], f" (backend={value!r})"
        for key in ("in_specs", "out_specs", "scratch_shapes", "grid_spec"):
            got = launch.options.get(key)
            if got is not None and self._mentions_tpu(got[0], got[1], got[2]):
                return Mode.TPU, f" ({key} with TPU memory spaces)"
        if lowering is not None:
            if lowering[1] == "tpu":
                return Mode.TPU, ""
            if self.release.gpu_pallas_call_backend == "mosaic_gpu":  # (jax 0.10: Mosaic GPU by default)
                return Mode.MOSAIC_GPU, f" (Mosaic GPU by default in jax {self.release.version})"
            return Mode.TRITON, ""
        return Mode.COMPILED, ""

    def _mentions_tpu(self, node: ast.AST, scope: Scope, order: Order, depth: int = 0) -> bool:
        """Whether a launch argument is built from TPU-only APIs (``pltpu.VMEM(...)``,
        ``pltpu.SemaphoreType...``, ``memory_space=pltpu.ANY``, ``pltpu.PrefetchScalarGridSpec``)."""
        if depth > 3:
            return False
        v = self.ev.value(node, scope, order)
        name = self.ev.called_api(v) if isinstance(v, CallVal) else self.ev.ext_name(v)
        if name and name.startswith(api.PLTPU + "."):
            return True
        if isinstance(v, TupleVal):
            return any(self._mentions_tpu(n, s, o, depth + 1) for n, s, o in v.items[:32])
        if isinstance(v, CallVal) and name == f"{api.PL}.BlockSpec":
            ms = self.ev.kwarg(v.site, "memory_space")
            return ms is not None and self._mentions_tpu(ms, v.site.scope, v.order, depth + 1)
        return False

    def _lowering_semantics(self, launch: Launch) -> str:
        """Mosaic GPU's lowering semantics from ``plgpu.CompilerParams(lowering_semantics=...)``
        (the release's default when not given or not known)."""
        default = self.release.mosaic_gpu_semantics
        opt = launch.options.get("compiler_params")
        if opt is None:
            return default
        v = self.ev.value(*opt)
        if not isinstance(v, CallVal):
            return default
        node = self.ev.kwarg(v.site, "lowering_semantics")
        if node is None:
            return default
        sem = self.ev.ext_name(self.ev.value(node, v.site.scope, v.order)) or ""
        return "lane" if sem.endswith(".Lane") else "warpgroup"

    def classify(self, node, scope, order, span, note) -> Context | None:
        all_ = self.classify_all(node, scope, order, span, note)
        return all_[0] if all_ else None

    def _path(self, scope: Scope | None) -> str | None:
        p = self.index.path_of(scope)
        return p if p != self.index.path else None

    def classify_all(self, node: ast.expr, scope: Scope, order: Order, span: Span, note: str,
                     depth: int = 0, seen: set | None = None, via: tuple = ()) -> list[Context]:
        """The contexts an ``interpret=`` value selects (several when callers differ)."""
        seen = set() if seen is None else seen
        if depth > _MAX_CALLER_DEPTH:
            return [Context(Mode.UNKNOWN, (Evidence(span, note, self._path(scope)),))]
        host = host_test(node, self.ev, scope, order)
        if host == "cpu":
            return [Context(Mode.INTERPRET, (Evidence(span, note, self._path(scope)),), certain=False)]
        if host == "accelerator":  # interpreted off CPU hosts only: compiled exactly on one
            return [Context(Mode.COMPILED, (Evidence(span, f"{note}, False on a CPU host", self._path(scope)),),
                            cpu_host=True, host_reason="host-test")]
        attr = self._self_attribute(node, scope, order)
        if attr is not None:
            return self._from_class_attribute(*attr, span, note, depth, seen, via)
        v = self.ev.value(node, scope, order)
        if isinstance(node, ast.BoolOp) and not isinstance(v, Const):
            return self._bool_op(node, scope, order, span, note, depth, seen, via)
        return self._classify_value(v, node, scope, order, span, note, depth, seen, via)

    def _bool_op(self, node: ast.BoolOp, scope, order, span, note, depth, seen, via) -> list[Context]:
        """``interpret or debug`` (``and``): each operand's contexts, combined call by call
        (operands that parameters fill from callers pair up only through the same call), as
        Python picks the value: the first truthy operand of ``or``, the first falsy of ``and``,
        else the last. An operand whose truth cannot be told makes the whole unknown."""
        whole = Evidence(span, note, self._path(scope))
        parts = [self.classify_all(v, scope, order, self.index.span(v, scope), self.index.code_of(v, scope),
                                   depth + 1, seen, via) for v in node.values[:_MAX_BOOL_OPERANDS]]
        if len(node.values) > _MAX_BOOL_OPERANDS or any(not p for p in parts):
            return [Context(Mode.UNKNOWN, (whole,))]
        combos: list[tuple[Context, ...]] = [()]
        for options in parts:
            combos = [c + (o,) for c in combos for o in options if _same_calls(c + (o,))][:_MAX_BOOL_COMBOS]
        out = ContextSet()
        pick_truthy = isinstance(node.op, ast.Or)
        for combo in combos:
            calls = tuple(dict.fromkeys(x for c in combo for x in c.via))
            caller = next((c.caller for c in combo if c.caller), "")
            chosen: Context | None = combo[-1]
            for c in combo:
                t = _truthiness(c)
                if t is None:
                    chosen = None
                    break
                if t is pick_truthy:
                    chosen = c
                    break
            if chosen is None:
                out.add(Context(Mode.UNKNOWN, (whole,), via=calls, caller=caller))
            else:
                out.add(replace(chosen, evidence=chosen.evidence + (whole,), via=calls, caller=chosen.caller or caller))
        return out.contexts or [Context(Mode.UNKNOWN, (whole,))]

    def _classify_value(self, v, node, scope, order, span, note, depth, seen, via=()) -> list[Context]:
        ev = (Evidence(span, note, self._path(scope)),)
        if isinstance(v, Const):
            if v.value is True:
                return [Context(Mode.INTERPRET, ev)]
            if v.value in (False, None):
                return [Context(Mode.COMPILED, ev)]
            return [Context(Mode.UNKNOWN, ev)]
        name = self.ev.called_api(v)
        if name is not None and self.release.lacks_api(name):
            return [Context(Mode.UNKNOWN, ev)]  # (the checked release has no such API: it stops there)
        if name == api.GPU_INTERPRET_PARAMS and isinstance(v, CallVal):
            mg = self.ev.kwarg(v.site, "inline_mgpu")
            mode_val: str | None = "error"
            if mg is not None:
                c = self.ev.const(mg, v.site.scope, v.order)
                mode_val = c if isinstance(c, str) else None
            extra = ()
            if v.site.node is not node:
                extra = (Evidence(self.index.span(v.site.node, v.site.scope), "GPU interpret params",
                                  self._path(v.site.scope)),)
            return [Context(Mode.GPU_INTERPRET, ev + extra, inline_mgpu=mode_val, params_site=v.site)]
        if name == api.TPU_INTERPRET_PARAMS and isinstance(v, CallVal):
            extra = ()
            if v.site.node is not node:
                extra = (Evidence(self.index.span(v.site.node, v.site.scope), "TPU interpret params",
                                  self._path(v.site.scope)),)
            return [Context(Mode.TPU_INTERPRET, ev + extra, params_site=v.site)]  # (PAL003 fixes edit it)
        if isinstance(v, ParamVal):
            return self._from_callers(v, span, note, depth, seen, via)
        return [Context(Mode.UNKNOWN, ev)]

    def _self_attribute(self, node: ast.expr, scope: Scope, order: Order) \
            -> tuple[classes.ClassRef, str, Scope] | None:
        """For ``self.X`` / ``cls.X`` in a method: the class, ``X`` and the method that runs
        for each instance (whose subclasses may override it)."""
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls")):
            return None
        v = self.ev.value(node.value, scope, order)
        if not isinstance(v, ParamVal) or not v.scope.params or v.scope.params[0][0] != v.name:
            return None
        cls_scope = self.ev.enclosing_class(v.scope)
        ref = classes.class_of(self.ev, cls_scope) if cls_scope is not None else None
        if ref is None:
            return None
        # A wrapper method (``self.pallas_call(...)``) reads the attribute of the instance it
        # is called on: the class of the method that calls it, when that class derives from ours.
        method = v.scope
        launch = self._launch
        if launch is not None:
            caller = classes.method_of(launch.site.scope)
            caller_cls = classes.class_of(self.ev, caller.parent) if caller is not None else None
            if caller_cls is not None and (caller_cls == ref or classes.is_subclass(caller_cls, ref)):
                ref, method = caller_cls, caller  # type: ignore[assignment]
        return ref, node.attr, method

    def _from_class_attribute(self, ref: classes.ClassRef, attr: str, method: Scope, span: Span, note: str,
                              depth: int, seen: set, via: tuple) -> list[Context]:
        """``self.X``: one context per class that runs the method (the class and each
        subclass that inherits it), with that class's value of ``X``."""
        here = self._path(None)
        results: list[Context] = []
        for cls in [ref] + classes.subclasses(ref):
            if cls != ref and not classes.runs_method(cls, method):
                continue  # the subclass overrides the test: this body does not run for it
            found = classes.member(cls, attr)
            if found is None or found[1].kind != "assign" or found[1].node is None:
                results.append(Context(Mode.UNKNOWN, (Evidence(span, note, here),), self_class=cls))
                continue
            owner, b = found
            assert b.scope is not None
            value = b.node
            mspan = self.index.span(b.stmt if b.stmt is not None else value, b.scope)
            mnote = f"{owner.name}.{attr} = {self.index.code_of(value, b.scope)}"
            if owner != cls:
                mnote += f" (inherited by `{cls.name}`)"
            for c in self.classify_all(value, b.scope, None, mspan, mnote, depth + 1, seen, via):
                results.append(replace(c, evidence=c.evidence + (Evidence(span, note, here),), self_class=cls))
        return results

    def _from_callers(self, p: ParamVal, span: Span, note: str, depth: int, seen: set,
                      via: tuple = ()) -> list[Context]:
        """The contexts the callers of ``p``'s function give it (``via``: ((function, call), ...)
        — for such a function only that call counts: a launch built by that very call)."""
        here = self._path(p.scope)
        key = (id(p.scope), p.name)
        if key in seen:
            return []
        seen = seen | {key}
        results: list[Context] = []
        invs = [i for i in self.ev.callers_of(p.scope) if i.how != "passed"]
        chosen = [site for fn, site in via if fn is p.scope]
        if chosen:
            invs = [i for i in invs if i.site is chosen[0]]
        bindings = []
        for inv in invs:
            b = self.ev.bind_param(inv, p.name)
            if b is None:
                results.append(Context(Mode.UNKNOWN, (Evidence(span, note, here),)))
                continue
            bindings.append((inv, b))
        if not invs:
            default = next((d for n, d, _ in p.scope.params if n == p.name), None)
            if default is not None and p.scope.parent is not None:
                dspan = self.index.span(default, p.scope.parent)
                for c in self.classify_all(default, p.scope.parent, None, dspan,
                                           f"{p.name}={self.index.code_of(default, p.scope.parent)} (default)",
                                           depth + 1, seen, via):
                    results.append(replace(c, evidence=c.evidence + (Evidence(span, note, here),)))
            else:
                results.append(Context(Mode.UNKNOWN, (Evidence(span, note, here),)))
            return results
        for inv, b in bindings:
            if b.node is None or b.scope is None:
                results.append(Context(Mode.UNKNOWN, (Evidence(span, note, here),)))
                continue
            bspan = self.index.span(b.node, b.scope)
            caller_fn = _enclosing_function(inv.site.scope)
            where = f"`{caller_fn.name}`" if caller_fn is not None else "module level"
            other = self._path(inv.site.scope)
            if other is not None:
                where += f" ({_rel(other, self.index.path)}:{self.index.span(inv.site.node, inv.site.scope).line})"
            bnote = f"{p.name}={self.index.code_of(b.node, b.scope)}" + (" (default)" if b.default else "")
            if b.default:
                # The default decides; the call that leaves it out comes next in the evidence.
                bnote = f"{p.name}={self.index.code_of(b.node, b.scope)} (default)"
                sub = self.classify_all(b.node, b.scope, None, self.index.span(b.node, b.scope), bnote,
                                        depth + 1, seen, via)
                call_ev = Evidence(self.index.span(inv.site.node, inv.site.scope),
                                   f"called from {where} without {p.name}", self._path(inv.site.scope))
                sub = [replace(c, evidence=c.evidence[:1] + (call_ev,) + c.evidence[1:], caller=c.caller or where)
                       for c in sub]
            else:
                sub = self.classify_all(b.node, b.scope, b.order, bspan, bnote, depth + 1, seen, via)
                sub = [replace(c, caller=c.caller or where) for c in sub]
            sub = [replace(c, via=c.via + ((p.scope, inv.site),)) for c in sub]
            for c in sub:
                # (replace keeps the params site: a fix edits the InterpretGPUParams(...) call.)
                results.append(replace(c, evidence=c.evidence + (Evidence(span, note, here),)))
        return results


_MAX_BOOL_OPERANDS = 4
_MAX_BOOL_COMBOS = 16


def _truthiness(c: Context) -> bool | None:
    """Whether the ``interpret=`` value a context came from is truthy (params objects are;
    False and None are not); None where it depends on the host or cannot be told."""
    if c.mode == Mode.UNKNOWN or not c.certain or c.cpu_host or c.forced:
        return None
    if c.mode.is_interpret:
        return True
    return False if c.mode == Mode.COMPILED else None


def _same_calls(contexts: tuple[Context, ...]) -> bool:
    """The contexts came through the same call wherever they came through one function."""
    site_of: dict[int, object] = {}
    for c in contexts:
        for fn, site in c.via:
            if site_of.setdefault(id(fn), site) is not site:
                return False
    return True


def _rel(path: str, base: str | None) -> str:
    import os

    try:
        return os.path.relpath(path, os.path.dirname(base)) if base else path
    except ValueError:
        return path


def _same_level(a: Scope, b: Scope, index: ModuleIndex) -> bool:
    """Two scopes whose statements run one after the other: one function, or the top level of
    one module (whose blocks are scopes of their own)."""
    return a is b or (a.kind == "module" and b.kind == "module" and index.path_of(a) == index.path_of(b))


def _yields_inside(w) -> bool:
    """A `with` whose body yields (a generator's: a ``contextlib.contextmanager`` that enters
    the force_ block around its caller's `with` body)."""
    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for st in w.node.body for n in ast.walk(st))
