"""Rules as data: a record's detection section (records/detection.py), interpreted.

A :class:`DataRule` is an ordinary rule of the one rule API: the engine dispatches to it by
the APIs its section names, and it reports with the record's own words (its templates are
filled from the record). A user who adds a record with a detection section gets diagnostics,
hovers, quick fixes and ``explain`` for it without writing Python.
"""
from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ..analysis import api, shapes
from ..analysis.launches import applied_at
from ..analysis.contexts import CPU_HOST_REASONS, Mode
from ..analysis.evaluate import CallVal, Const, Ext, FuncVal, TupleVal, Unknown
from ..analysis.findings import Fix, TextEdit
from ..analysis.fixes import (MODULE_PLACEHOLDER, add_kwarg, call_text, new_scratch_edits, remove_kwarg,
                              statement_indent, value_in_module)
from ..analysis.rule_api import NOT_KNOWN, Hit, Report, Rule
from ..analysis.scopes import CallSite
from ..records import ErrorRecord
from ..records.detection import ARG_PLACEHOLDER, ArgRef, Condition, Detection, FixSpec, _short
from .context_fixes import build_in_context, extend_context, interpret_on_cpu_hosts
from .im2col_fix import im2col_rows_outside
from .transform_fixes import stop_gradient_at_inputs
from .scratch_fixes import reduce_in_scratch, transpose_into_scratch

_MODES = {
    "interpret": Mode.INTERPRET, "tpu-interpret": Mode.TPU_INTERPRET, "gpu-interpret": Mode.GPU_INTERPRET,
    "mosaic-gpu": Mode.MOSAIC_GPU, "triton": Mode.TRITON, "tpu": Mode.TPU, "compiled": Mode.COMPILED,
}
_DEFAULT = object()  # a params field that is not passed


class _Safe(dict):
    def __missing__(self, key: str) -> str:  # (templates are checked when loaded; belt and braces)
        return "{" + key + "}"


class DataRule(Rule):
    """A rule declared by a record's detection section."""

    def __init__(self, record: ErrorRecord, detection: Detection) -> None:
        self.record_data = record
        self.detection = detection
        self.code = detection.code
        self.name = detection.name
        self.record = record.slug
        self.summary = detection.summary or record.error_message
        self.construct = "call" if detection.construct == "call" else "launch"
        self.apis = frozenset(api.canonical(a) if not a.startswith("@") else "@" + api.canonical(a[1:])
                              for a in detection.apis)
        self.modes = frozenset(_MODES[m] for m in detection.modes if m in _MODES)
        self.cuda_lowering = "cuda-lowering" in detection.modes
        # (A setter that misses the launch is a kind of its own: "setter-missed".)
        self.host_reasons = (set(CPU_HOST_REASONS) if "cpu-host" in detection.modes else set()) | \
            ({"setter"} if "setter-missed" in detection.modes else set())
        self.launch_apis = frozenset(api.canonical(a) for a in detection.launched_by) or None
        self.transforms = frozenset(detection.transformed_by)
        self.label = detection.label

    @property
    def documentation(self) -> str:
        rec = self.record_data
        parts = [f"{rec.error_message}", "", rec.documentation or rec.trigger_scenarios]
        return "\n".join(p for p in parts if p is not None).strip()

    def applies(self, hit: Hit) -> bool:
        ctx = hit.context
        if ctx.cpu_host:
            if ctx.host_reason not in self.host_reasons:
                return False  # (on a CPU host a compiled launch fails before any backend rule)
        elif not (ctx.mode in self.modes or (self.cuda_lowering and ctx.cuda_lowering)):
            return False
        if self.detection.lowered_for and ctx.lowered_for not in self.detection.lowered_for:
            return False  # (only a lowering or export the code spells out for that platform)
        if self.launch_apis is not None and hit.launch.api.name not in self.launch_apis:
            return False
        if self.detection.lowering_semantics and \
                _lowering_semantics(hit) not in self.detection.lowering_semantics:
            return False  # (or it cannot be told: stay quiet)
        for name, value in self.detection.unless_params:
            got = _interpret_param(hit, name)
            if got is NOT_KNOWN or got == value:
                return False  # the params say so (or cannot be told: stay quiet)
        return True

    def check(self, hit: Hit) -> Report | None:
        with hit.reading():  # (a helper's parameters as the calls that reached it pass them)
            return self._check(hit)

    def _check(self, hit: Hit) -> Report | None:
        d = self.detection
        site = hit.site
        launch = hit.kind == "launch"
        if d.quiet_when_launch:
            lsite = hit.launch.site
            lorder = hit.ev.order_of(lsite)
            if any(_witness(hit, lsite, lorder, c, launch=True) is not None for c in d.quiet_when_launch):
                return None  # (JAX fails earlier, on the launch: another kind)
        found = []
        for c in d.where:
            w = _witness(hit, site, hit.ev.order_of(site), c, launch=launch)
            if w is None:
                return None
            found.append(w)
        span = None
        arg_node = None
        if d.underline_condition is not None:
            call = found[d.underline_condition]
            if not isinstance(call, CallVal):
                return None  # (an API named, not called: nothing of the code to point at)
            if d.underline is not None:
                with hit.ev.within(call.frames):
                    arg_node = _argument(hit, call.site, d.underline)
                    if arg_node is None:
                        return None
                    arg_node = _written_at(hit.ev, *arg_node)
            else:
                span = hit.span_of(call.site.node, call.site.scope)
        elif d.underline is not None:
            arg_node = _argument(hit, site, d.underline, launch=launch)
            arg_node = _written_at(hit.ev, *arg_node) if arg_node is not None else None
        if arg_node is not None:
            span = hit.span_of(arg_node[0], arg_node[1])
        fields = self._fields(hit, arg_node)
        key = id(arg_node[0]) if arg_node is not None else (
            id(found[d.underline_condition].site.node) if d.underline_condition is not None else None)
        if d.underline_transform and hit.transform is not None:
            span, key = hit.transform.span, id(hit.transform.site.node)
        if d.underline_host and hit.context.host_span is not None:
            span, key = hit.context.host_span, ("host", hit.context.host_span)
        return Report(d.error.format_map(fields), d.headline.format_map(fields), span=span,
                      key=key, fixable=any(self._offered(spec, hit) for spec in d.fixes))

    def _underlined_call(self, hit: Hit) -> CallVal | None:
        """The call the underline condition found (``plgpu.SMEM(...)`` in a scratch list); what a
        ``replaceCallee`` fix edits."""
        d = self.detection
        if d.underline_condition is None:
            return None
        w = _witness(hit, hit.site, hit.ev.order_of(hit.site), d.where[d.underline_condition],
                     launch=hit.kind == "launch")
        # (A call made in a helper (``return pl.BlockSpec(memory_space=space)``) is not edited:
        # its other callers would change too.)
        return w if isinstance(w, CallVal) and w.frames == hit.frames else None

    @staticmethod
    def _offered(spec: FixSpec, hit: Hit) -> bool:
        """A fix is not offered under a transformation it would only move to the next error, nor
        where its ``when`` conditions do not surely hold, nor (with ``whenTransformedBy``) for a
        launch no such transformation reaches."""
        t = hit.transform
        if t is not None and spec.unless_transformed_by and t.matches(frozenset(spec.unless_transformed_by)):
            return False
        if spec.when_transformed_by:
            wanted = frozenset(spec.when_transformed_by)
            if not any(x.matches(wanted) for x in ((t,) if t is not None else hit.launch.transforms)):
                return False
        if spec.unless_kernel_calls and _kernel_calls_again(hit, spec.unless_kernel_calls):
            return False
        order = hit.ev.order_of(hit.site)
        return all(_holds(hit, hit.site, order, c, launch=hit.kind == "launch") for c in spec.when)

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        with hit.reading():
            return self._fixes(hit)

    def _fixes(self, hit: Hit) -> list[Fix]:
        out = []
        underlined = self._underlined_call(hit) \
            if any(f.op == "replaceCallee" or f.on_underlined for f in self.detection.fixes) else None
        for spec in self.detection.fixes:
            if not self._offered(spec, hit):
                continue
            fix = _build_fix(hit, spec, underlined)
            if fix is not None:
                out.append(fix)
        return out

    def _fields(self, hit: Hit, arg_node) -> _Safe:
        rec = self.record_data
        argument = value = ""
        if arg_node is not None:
            argument = hit.index.code_of(arg_node[0], arg_node[1])
            lit = hit.ev.const(arg_node[0], arg_node[1], arg_node[2])
            value = str(lit) if lit is not NOT_KNOWN else argument
        return _Safe(errorClass=rec.error_class, errorMessage=rec.error_message, label=self.label,
                     context=hit.context.words, argument=argument, value=value, api=_short(hit.api),
                     transform=hit.transform.api if hit.transform is not None else "",
                     decidedBy=hit.context.decided_by)


def _argument(hit: Hit, site: CallSite, ref: ArgRef, *, launch: bool = False):
    """(node, scope, order) of the argument ``ref`` names at ``site``; for a launch, keywords
    are looked up through the launch's wrappers and partials too."""
    ev = hit.ev
    if launch and ref.keyword is not None:
        got = hit.launch_option(ref.keyword)
        if got is not None:
            return got
        grid_spec = _grid_spec_call(hit) if ref.keyword in _GRID_SPEC_FIELDS else None
        if grid_spec is not None:  # (JAX reads the launch's specs from its grid spec then)
            return _argument(hit, grid_spec.site, ArgRef(_GRID_SPEC_FIELDS[ref.keyword].get(
                ev.called_api(grid_spec)), ref.keyword))
    return ev.call_argument(site, ref.position, ref.keyword)


# What a launch's grid spec (``grid_spec=pl.GridSpec(...)``) holds in its stead, and where each
# class takes it positionally.
# (``grid`` is not among them: a record names a grid spec's grid as its own construct, PAL504.)
_GRID_SPEC_FIELDS = {
    "in_specs": {api.GRID_SPEC: 1, api.TPU_PREFETCH_GRID_SPEC: 2},
    "out_specs": {api.GRID_SPEC: 2, api.TPU_PREFETCH_GRID_SPEC: 3},
    "scratch_shapes": {api.GRID_SPEC: 3, api.TPU_PREFETCH_GRID_SPEC: 4},
}


def _grid_spec_call(hit: Hit) -> CallVal | None:
    """The ``pl.GridSpec(...)`` / ``pltpu.PrefetchScalarGridSpec(...)`` call the launch is given
    as ``grid_spec=``, where the code shows it (through names)."""
    opt = hit.launch_option("grid_spec")
    if opt is None:
        return None
    v = hit.ev.value(*opt)
    if isinstance(v, CallVal) and hit.ev.called_api(v) in (api.GRID_SPEC, api.TPU_PREFETCH_GRID_SPEC):
        return v
    return None


_HELD = True  # the witness of a test that finds no call (missing, present, a literal test)
# Expressions whose value is never None (what ``Unknown.reason`` names for them).
_NEVER_NONE_EXPRESSIONS = {"Compare", "BinOp", "JoinedStr", "Dict", "Set", "ListComp", "DictComp", "SetComp"}


def _holds(hit: Hit, site: CallSite, order, c: Condition, *, launch: bool = False) -> bool:
    return _witness(hit, site, order, c, launch=launch) is not None


def _witness(hit: Hit, site: CallSite, order, c: Condition, *, launch: bool = False):
    """None when condition ``c`` does not surely hold at ``site`` (unknown values never hold:
    a data rule speaks only when the code says so); else what shows it holds: the call an
    ``api`` / ``contains`` test found (a CallVal, or the Ext an ``api`` test named), or True."""
    ev = hit.ev
    if c.argument.rest is not None:  # (a `contains` test over the arguments as a list)
        o = order if order is not None else ev.order_of(site)
        items = [(n, site.scope, o) for n in site.node.args[c.argument.rest:] if not isinstance(n, ast.Starred)]
        items += [(k.value, site.scope, o) for k in site.node.keywords if k.arg is not None]
        return _contained(hit, ev, TupleVal(tuple(items)), c)
    decider = TEST_WITNESSES[c.test]
    got = _argument(hit, site, c.argument, launch=launch)
    if got is None and not decider.decides_unpassed:
        return None
    return decider.decide(hit, site, c, got)


@dataclass(frozen=True)
class ConditionWitness:
    """How one condition test of the detection schema (records/detection.py's CONDITION_TESTS,
    where it is parsed and documented) is decided at a hit: ``decide(hit, site, condition,
    argument)`` returns the witness or None. ``argument`` is (node, scope, order), or None when
    not passed, which only a test that ``decides_unpassed`` is asked about."""

    decide: Callable[[Hit, CallSite, Condition, Any], Any]
    decides_unpassed: bool = False


def _missing(hit: Hit, site: CallSite, c: Condition, got):
    if site.has_star and c.argument.position is not None:
        return None  # *args may pass it
    if got is None:
        return None if any(k.arg is None for k in site.node.keywords) else _HELD  # (**kwargs may pass it)
    return _HELD if hit.ev.const(got[0], got[1], got[2]) is None else None


def _truthiness(hit: Hit, c: Condition, got, wanted: bool):
    ev = hit.ev
    node, scope, o = got
    v = ev.value(node, scope, o)
    if isinstance(v, Unknown) and v.reason == "Dict":
        lit, ls = _expression(ev, node, scope, o)
        v = TupleVal(tuple((k, ls, o) for k in lit.keys)) if isinstance(lit, ast.Dict) and \
            None not in lit.keys else v  # (a literal dict, no ** in it: its keys count)
    truth = _truth(ev, v)
    if truth is None:
        return None
    return _HELD if truth == wanted else None


def _literal_test(hit: Hit, c: Condition, got, ok: Callable[[Any, Any], bool]):
    v = hit.ev.value(*got)
    if not isinstance(v, Const):
        return None
    return _HELD if ok(v.value, c.value) else None


def _equals(lit, wanted) -> bool:
    if isinstance(wanted, bool) or isinstance(lit, bool):
        return lit is wanted  # (True is not 1 here)
    return lit == wanted


def _api_test(hit: Hit, c: Condition, got):
    ev = hit.ev
    node, scope, o = got
    # (an API the checked jax release lacks makes no value there: the program stops at its call)
    names = {api.canonical(a) for a in c.value if not hit.release.lacks_api(api.canonical(a))}
    found = _api_call(ev, _view_source(ev, node, scope, o), names) if names else None
    if found is None:
        return None
    if c.where:
        if not isinstance(found, CallVal):
            return None
        if not all(_holds_in(hit, found, sub) for sub in c.where):
            return None
    return found


def _held_if(predicate: Callable[[Hit, Any], bool]) -> ConditionWitness:
    """A test whose witness is only that it holds (no call found)."""
    return ConditionWitness(lambda hit, site, c, got: _HELD if predicate(hit, got) else None)


TEST_WITNESSES: dict[str, ConditionWitness] = {
    "missing": ConditionWitness(_missing, decides_unpassed=True),
    "present": _held_if(lambda hit, got: _surely_not_none(hit.ev, hit.ev.value(*got))),
    "passed": _held_if(lambda hit, got: not (isinstance(v := hit.ev.value(*got), Const) and v.value is None)),
    "truthy": ConditionWitness(lambda hit, site, c, got: _truthiness(hit, c, got, True)),
    "falsy": ConditionWitness(lambda hit, site, c, got: _truthiness(hit, c, got, False)),
    "nonEmptyAxes": _held_if(lambda hit, got: _non_empty_axes(hit, *got)),
    "transposed": _held_if(lambda hit, got: _transposed_view(hit.ev, *got)),
    "nonZero": _held_if(lambda hit, got: _non_zero(hit.ev, hit.ev.value(*got))),
    "movingIndexMap": _held_if(lambda hit, got: _moving_index_map(hit.ev, hit.ev.value(*got))),
    "dynamicEntry": _held_if(lambda hit, got: _dynamic_entry(hit.ev, *got)),
    "wholeArray": ConditionWitness(lambda hit, site, c, got: _whole_array(hit, site, c, got), decides_unpassed=True),
    "equals": ConditionWitness(lambda hit, site, c, got: _literal_test(hit, c, got, _equals)),
    "notIn": ConditionWitness(lambda hit, site, c, got: _literal_test(hit, c, got, lambda lit, v: lit not in v)),
    "greaterThan": ConditionWitness(lambda hit, site, c, got: _literal_test(
        hit, c, got, lambda lit, v: isinstance(lit, int) and not isinstance(lit, bool) and lit > v)),
    "api": ConditionWitness(lambda hit, site, c, got: _api_test(hit, c, got)),
    "contains": ConditionWitness(lambda hit, site, c, got: _contained(hit, hit.ev, hit.ev.value(*got), c)),
    "anyLeaf": ConditionWitness(lambda hit, site, c, got: _leaf(hit, hit.ev, got[0], got[1], got[2], c, 0)),
}


def _contained(hit: Hit, ev, v, c: Condition):
    """The item of a literal list or tuple ``v`` that is a call of ``c``'s APIs and meets its
    ``where``, or None."""
    names = {api.canonical(a) for a in c.value}
    if not isinstance(v, TupleVal):
        return None
    for n, s, io in v.items:
        with ev.within(v.frames):
            item = _api_call(ev, ev.value(n, s, io), names)
        if item is None:
            continue
        if not c.where:
            return item
        if isinstance(item, CallVal) and all(_holds_in(hit, item, sub) for sub in c.where):
            return item
    return None


def _holds_in(hit: Hit, call: CallVal, c: Condition) -> bool:
    """Whether ``c`` holds of a call the code makes, its arguments read in the frames it was
    made in (a helper's ``pl.BlockSpec(memory_space=space)`` with ``space`` as passed)."""
    with hit.ev.within(call.frames):
        return _holds(hit, call.site, call.order, c)


def _written_at(ev, node: ast.AST, scope, order):
    """(node, scope, order) of the expression an argument comes from: through the parameters
    of the helpers the frames fill, to what the code writes (``spec(pltpu.SMEM)``'s
    ``pltpu.SMEM``, or a parameter's default), where a squiggle and an edit belong."""
    frames = ev.frames
    for _ in range(8):
        if not isinstance(node, ast.Name):
            break
        b = ev.lookup(node.id, scope, order)
        if b is not None and b.kind == "assign" and b.node is not None and b.scope is not None \
                and any(f.target is b.scope for f in frames):
            node, scope = b.node, b.scope  # (a helper's local name: what it is bound to there)
            continue
        if b is None or b.kind != "param" or b.scope is None:
            break
        with ev.within(frames):
            got = ev.argument_for(b.scope, b.name)
        if got is None:
            break
        node, scope, order, frames = got
    return node, scope, order


def _surely_not_none(ev, v) -> bool:
    """Whether a value is surely not None: a literal other than None, a tuple or list, an API
    or a call of one, a local function, a comparison or arithmetic."""
    if isinstance(v, Const):
        return v.value is not None
    if isinstance(v, (TupleVal, Ext, FuncVal)):
        return True
    if isinstance(v, CallVal):
        return ev.called_api(v) is not None
    return isinstance(v, Unknown) and v.reason in _NEVER_NONE_EXPRESSIONS


def _non_empty_axes(hit: Hit, node: ast.AST, scope, order) -> bool:
    """Whether axis names (``collective_axes``) surely make a non-empty tuple once JAX wraps a
    value that is not a tuple in one: a literal (``None`` and ``""`` too), or a tuple with items,
    followed through names and the parameters the kernel's calls fill (a helper's, a decorator
    factory's). A list is not counted: it fails earlier, as an unhashable primitive parameter."""
    ev = hit.ev
    frames = ev.frames
    for _ in range(8):
        with ev.within(frames):
            node, scope = _expression(ev, node, scope, order)
            b = ev.lookup(node.id, scope, order) if isinstance(node, ast.Name) else None
            got = ev.argument_for(b.scope, b.name) if b is not None and b.kind == "param" and b.scope else None
            if got is not None:  # (a parameter: what the call passes, in its caller's frames)
                node, scope, order, frames = got
                continue
            v = ev.value(node, scope, order)
        if isinstance(v, Const):
            return True
        if isinstance(v, TupleVal):
            return isinstance(node, ast.Tuple) and bool(v.items)
        return False
    return False


def _truth(ev, v) -> bool | None:
    """``bool(value)`` when the code says it: a literal, or a literal tuple or list (by its
    length); None when it cannot be told."""
    if isinstance(v, Const):
        return bool(v.value)
    if isinstance(v, TupleVal):
        return bool(v.items)
    return None


def _base(node: ast.AST) -> ast.AST:
    """``view.at[...]``, ``view[...]`` -> ``view``: the value an indexed Ref is a view of."""
    for _ in range(8):
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Attribute) and node.attr == "at":
            node = node.value
        else:
            break
    return node


def _expression(ev, node: ast.AST, scope, order):
    """(the expression a name is bound to, through names, and its scope), or the node itself."""
    for _ in range(8):
        if not isinstance(node, ast.Name):
            break
        b = ev.lookup(node.id, scope, order)
        if b is None or b.kind != "assign" or b.node is None or b.scope is None:
            break
        node, scope = b.node, b.scope
    return node, scope


def _whole_array(hit: Hit, site: CallSite, c: Condition, got):
    """The ``wholeArray`` test on ``in_specs`` / ``out_specs`` of the launch or of its grid spec
    (``site``): with true, every BlockSpec surely covers its array; with false, the first one
    that surely does not (its call is the witness)."""
    ev = hit.ev
    launch = hit.launch
    if got is None or ev.const(got[0], got[1], got[2]) is None:
        return _HELD if c.value else None  # (no specs: whole arrays)
    if site is launch.site and hit.launch_option(c.argument.keyword) is None:
        grid_spec = _grid_spec_call(hit)  # (the specs were read from it)
        site = grid_spec.site if grid_spec is not None else site
    node, scope, order = got
    v = ev.value(node, scope, order)
    with ev.within(v.frames if isinstance(v, TupleVal) else ev.frames):
        specs = [ev.returned(ev.value(n, s, o)) for n, s, o in v.items] if isinstance(v, TupleVal) \
            else [ev.returned(v)]
    if c.argument.keyword == "in_specs":
        arrays = shapes.operand_shapes(ev, applied_at(ev, launch))
        if arrays is not None and site is not launch.site:  # (a grid spec: its scalar-prefetch operands first)
            prefetch_class = ev.called_api(ev.value(site.node, site.scope, ev.order_of(site)))
            prefetch = _argument(hit, site, ArgRef(0 if prefetch_class == api.TPU_PREFETCH_GRID_SPEC else None,
                                                   "num_scalar_prefetch"))
            n = ev.const(*prefetch) if prefetch is not None else 0
            arrays = arrays[n:] if isinstance(n, int) and not isinstance(n, bool) else None
    else:
        out = hit.launch_option("out_shape")
        arrays = shapes.struct_shapes(ev, ev.value(*out)) if out is not None else None
    if arrays is not None and len(arrays) != len(specs):
        arrays = None  # (pytrees of specs, or operands the analysis did not count: not matched)
    verdicts = [shapes.block_covers(ev, spec, arrays[i] if arrays is not None else None)
                for i, spec in enumerate(specs)]
    if c.value:
        return _HELD if all(x is True for x in verdicts) else None
    return next((spec for spec, x in zip(specs, verdicts) if x is False and isinstance(spec, CallVal)), None)


def _moving_index_map(ev, v) -> bool:
    """Whether a function (lambda or def) surely returns an index that is not the literal 0 when
    traced: one of its parameters as it is, or a number other than 0. Anything else (a value the
    analysis cannot tell, which may well be a Python 0) does not count."""
    if not isinstance(v, FuncVal):
        return False
    scope = v.scope
    params = {p[0] for p in scope.params}
    if scope.node is None:
        return False
    returned = [scope.node.body] if isinstance(scope.node, ast.Lambda) else list(scope.returns)
    if len(returned) != 1:
        return False  # (several returns: which one runs cannot be told)
    body = returned[0]
    elements = body.elts if isinstance(body, (ast.Tuple, ast.List)) else [body]
    for e in elements:
        if isinstance(e, ast.Name) and e.id in params:
            return True
        lit = ev.const(e, scope)
        if isinstance(lit, (int, float)) and not isinstance(lit, bool) and lit != 0:
            return True
    return False


def _dynamic_entry(ev, node: ast.AST, scope, order) -> bool:
    """Whether a grid (one value, or a literal tuple or list of them) has an entry that is
    surely not a Python int when the launch is built (dynamic_grid_gpu_interpret's reading)."""
    from .dynamic_grid_gpu_interpret import StaticEvaluator

    v = ev.value(node, scope, order)
    entries = list(v.items) if isinstance(v, TupleVal) else [(node, scope, order)]
    se = StaticEvaluator(ev)
    return any(se.of(n, s, o).kind == "dynamic" for n, s, o in entries[:64])


def _non_zero(ev, v) -> bool:
    if isinstance(v, Const):
        return isinstance(v.value, (int, float)) and not isinstance(v.value, bool) and v.value != 0
    if isinstance(v, TupleVal) and v.items:
        nums = [ev.const(n, s, o) for n, s, o in v.items]
        if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in nums):
            return any(x != 0 for x in nums)
    return False


def _leaf(hit: Hit, ev, node: ast.AST, scope, order, c: Condition, depth: int):
    """The call of ``c``'s APIs (meeting its ``where``) that the value is, or that a literal list,
    tuple or dict holds at any depth; None when there is none the code shows."""
    if depth > 6:
        return None
    v = ev.value(node, scope, order)
    names = {api.canonical(a) for a in c.value}
    item = _api_call(ev, v, names)
    if item is not None:
        if not c.where:
            return item
        if isinstance(item, CallVal) and all(_holds_in(hit, item, sub) for sub in c.where):
            return item
        return None
    if isinstance(v, TupleVal):
        children = list(v.items)
    elif isinstance(v, Unknown) and v.reason == "Dict":
        lit, ls = _expression(ev, node, scope, order)
        children = [(x, ls, order) for x in lit.values] if isinstance(lit, ast.Dict) else []
    else:
        return None
    frames = v.frames if isinstance(v, TupleVal) else ev.frames
    for n, s, o in children[:64]:
        with ev.within(frames):
            found = _leaf(hit, ev, n, s, o, c, depth + 1)
        if found is not None:
            return found
    return None


def _transposed_view(ev, node: ast.AST, scope, order) -> bool:
    """Whether the expression is a Ref view made by ``.T`` or ``.transpose(...)`` (through
    indexing, ``.at[...]`` and names bound to such views)."""
    for _ in range(8):
        if isinstance(node, ast.Attribute) and node.attr == "T":
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "transpose":
            return True
        base = _base(node)
        if base is not node:
            node = base
            continue
        if not isinstance(node, ast.Name):
            return False
        b = ev.lookup(node.id, scope, order)
        if b is None or b.kind != "assign" or b.node is None or b.scope is None:
            return False
        node, scope = b.node, b.scope
    return False


def _view_source(ev, node: ast.AST, scope, order):
    """The value a Ref view is taken of: ``view.at[...]``, ``view[...]`` -> ``view``, also
    through names bound to such views (``src = patches.at[0]``)."""
    for _ in range(8):
        node = _base(node)
        if not isinstance(node, ast.Name):
            break
        b = ev.lookup(node.id, scope, order)
        if b is None or b.kind != "assign" or b.node is None or b.scope is None:
            break
        if not isinstance(_base(b.node), (ast.Name,)) and _base(b.node) is b.node:
            break  # (not a view: its value is what the name is)
        node, scope = b.node, b.scope
    return ev.value(node, scope, order)


def _api_call(ev, v, names: set[str]):
    """``v`` when it is one of the APIs ``names`` or a call of one (also as a small local helper
    returns it: ``spec(pltpu.SMEM)``), else None."""
    v = ev.returned(v)
    if isinstance(v, Ext) and api.canonical(v.name) in names:
        return v
    if isinstance(v, CallVal):
        called = ev.called_api(v)
        if called is not None and api.canonical(called) in names:
            return v
    return None


def _lowering_semantics(hit: Hit) -> str | None:
    """Mosaic GPU's lowering semantics of the launch ("warpgroup", the default, or "lane"), or
    None when the code does not surely say (compiler params built where the analysis cannot see)."""
    ev = hit.ev
    opt = hit.launch_option("compiler_params")
    if opt is None:
        return "warpgroup"
    v = ev.value(*opt)
    if not isinstance(v, CallVal) or ev.called_api(v) not in api.GPU_COMPILER_PARAMS or v.site.has_star:
        return None
    node = ev.kwarg(v.site, "lowering_semantics")
    if node is None:
        return "warpgroup"
    name = ev.ext_name(ev.value(node, v.site.scope, v.order)) or ""
    return {"LoweringSemantics.Warpgroup": "warpgroup", "LoweringSemantics.Lane": "lane"}.get(
        ".".join(name.split(".")[-2:]))


def _interpret_param(hit: Hit, name: str) -> Any:
    """The value of the interpret params' field ``name``: a literal, ``_DEFAULT`` when not
    passed, or NOT_KNOWN."""
    if name == "inline_mgpu" and hit.context.mode == Mode.GPU_INTERPRET:
        return NOT_KNOWN if hit.context.inline_mgpu is None else hit.context.inline_mgpu
    site = hit.params_call()
    if site is None:
        return _DEFAULT if hit.context.mode.is_interpret else NOT_KNOWN
    if site.has_star:
        return NOT_KNOWN
    node = hit.ev.kwarg(site, name)
    if node is None:
        return _DEFAULT
    return hit.ev.const(node, site.scope, hit.ev.order_of(site))


def _names_bound(index, value: str, own: frozenset[str] = frozenset()) -> bool:
    """Whether every name a fix's value reads is bound at module level (or a builtin), so the
    edit does not leave a NameError (``plgpu.InterpretGPUParams()`` in a file that imports the
    module as ``mgpu``). Module placeholders (``{jax.experimental.pallas.tpu}``) are imported
    by the fix itself."""
    import builtins

    tree = _template_tree(value)
    if tree is None:
        return False
    # Names the template binds itself (`(v := load(...), jnp.max(v))`, `def _():`).
    own = own | _names_stored(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id != "__module__" and node.id not in own \
                and node.id not in index.scope.bindings and not hasattr(builtins, node.id):
            return False
    return True


def _interpret_flag(hit: Hit) -> str | None:
    """The launch's ``interpret=`` argument when it is a module-level name (``INTERPRET``, a
    debugging switch) whose value is ``True`` and which decides this launch's mode by itself
    (no caller, wrapper or context manager in between): a fix keeps it as the condition."""
    got = hit.launch_option("interpret")
    ctx = hit.context
    if got is None or ctx.forced or ctx.caller or ctx.via or ctx.mode != Mode.INTERPRET:
        return None
    node, scope, order = got
    if not isinstance(node, ast.Name):
        return None
    b = hit.ev.lookup(node.id, scope)
    v = hit.ev.value(node, scope, order)
    if b is None or b.scope is None or b.scope.kind != "module" or not (isinstance(v, Const) and v.value is True):
        return None
    return node.id


def _build_fix(hit: Hit, spec: FixSpec, underlined: CallVal | None) -> Fix | None:
    return FIX_BUILDERS[spec.op](hit, spec, underlined)


def _data_edit(make_edit, *, reads_value: bool = True):
    """A fix op whose edit the record spells out: its value (whose names must be bound) put in
    the module's own names, then ``make_edit(hit, spec, value, underlined)`` returns (edits,
    more import edits) or None."""

    def build(hit: Hit, spec: FixSpec, underlined: CallVal | None) -> Fix | None:
        if reads_value and not _names_bound(hit.index, spec.value):
            return None
        value, imports = value_in_module(hit.index, spec.value)
        got = make_edit(hit, spec, value, underlined)
        if got is None:
            return None
        edits, more = got
        return Fix(spec.title, edits + imports + tuple(e for e in more if e not in imports),
                   preferred=spec.safe, safe=spec.safe)

    return build


def _edited_call(hit: Hit, spec: FixSpec, underlined: CallVal | None) -> CallSite | None:
    """The call a keyword edit is on: the construct's, the underlined one (``onUnderlined``),
    or the launch (``setLaunchKeyword``); None when it is in another module."""
    index = hit.index
    site = hit.site
    if spec.on_underlined:
        if underlined is None or index.path_of(underlined.site.scope) != index.path:
            return None
        site = underlined.site
    if spec.op == "setLaunchKeyword":
        site = hit.launch.site
        if hit.ev.index.path_of(site.scope) != index.path:
            return None  # (the launch is in another module: an edit carries no path)
    return site


def _set_keyword(hit: Hit, spec: FixSpec, value: str, underlined: CallVal | None):
    site = _edited_call(hit, spec, underlined)
    if site is None:
        return None
    if spec.name == "interpret" and site is hit.launch.site:
        flag = _interpret_flag(hit)
        if flag is not None:  # ``interpret=INTERPRET``, a module switch set to True: it keeps deciding
            value = f"{value} if {flag} else {flag}"
        elif not hit.context.from_launch_keyword \
                and (hit.context.forced or hit.launch_option("interpret") is not None):
            return None  # (the mode comes from elsewhere: a wrapper, a partial, a context manager)
    edit = add_kwarg(hit.index, site.node, site.scope, spec.name, value)
    return None if edit is None else ((edit,), ())


def _remove_keyword(hit: Hit, spec: FixSpec, value: str, underlined: CallVal | None):
    site = _edited_call(hit, spec, underlined)
    if site is None:
        return None
    edit = remove_kwarg(hit.index, site.node, site.scope, spec.name)
    return None if edit is None else ((edit,), ())


def _set_interpret_param(hit: Hit, spec: FixSpec, value: str, underlined: CallVal | None):
    params = hit.params_call()
    if params is None:
        return None  # default params built elsewhere (a bare force_ call): left to the author
    edit = add_kwarg(hit.index, params.node, params.scope, spec.name, value)
    return None if edit is None else ((edit,), ())


def _set_compiler_param(hit: Hit, spec: FixSpec, value: str, underlined: CallVal | None):
    got = _compiler_param_edit(hit, spec, value)
    if got is None or got[0] is None:
        return None
    return (got[0],), got[1]


def _replace_call(hit: Hit, spec: FixSpec, value: str, underlined: CallVal | None):
    site = hit.site
    if _binds_taken_name(site.scope, value):
        return None
    text = _with_arguments(hit, value)
    if text is None:
        return None
    return (TextEdit(hit.index.span(site.node, site.scope), text),), ()


def _add_scratch(hit: Hit, spec: FixSpec, value: str, underlined: CallVal | None):
    index, site = hit.index, hit.site
    if not _names_bound(index, spec.template, frozenset({spec.name})) or hit.reached is None:
        return None
    template, more = value_in_module(index, spec.template)
    text = _with_arguments(hit, template)
    if text is None:
        return None
    got = new_scratch_edits(hit, [(value, spec.name)], also=(TextEdit(index.span(site.node, site.scope), text),))
    return None if got is None else (got[1], more)


def _replace_callee(hit: Hit, spec: FixSpec, value: str, underlined: CallVal | None):
    index = hit.index
    if underlined is None or index.path_of(underlined.site.scope) != index.path:
        return None
    return (TextEdit(index.span(underlined.site.node.func, underlined.site.scope), value),), ()


# How each fix op of the detection schema (records/detection.py's FIX_OP_REGISTRY, where it is
# parsed and documented) is applied at a hit: op name -> (hit, spec, underlined call) -> Fix or None.
FIX_BUILDERS: dict[str, Callable[[Hit, FixSpec, CallVal | None], Fix | None]] = {
    "setKeyword": _data_edit(_set_keyword),
    "setLaunchKeyword": _data_edit(_set_keyword),
    "removeKeyword": _data_edit(_remove_keyword, reads_value=False),
    "setInterpretParam": _data_edit(_set_interpret_param),
    "setCompilerParam": _data_edit(_set_compiler_param),
    "replaceCallee": _data_edit(_replace_callee),
    "replaceCall": _data_edit(_replace_call),
    "addScratch": _data_edit(_add_scratch),
    "transposeIntoScratch": lambda hit, spec, _: transpose_into_scratch(hit, spec.title, spec.name, spec.safe),
    "reduceInScratch": lambda hit, spec, _: reduce_in_scratch(hit, spec.title, spec.name, spec.value, spec.safe),
    "makeGridStatic": lambda hit, spec, _: _grid_made_static(hit, spec),
    "extendContext": lambda hit, spec, _: extend_context(hit, spec.title, spec.safe),
    "buildInContext": lambda hit, spec, _: build_in_context(hit, spec.title, spec.safe),
    "interpretOnCpuHosts": lambda hit, spec, _: interpret_on_cpu_hosts(hit, spec.title, spec.safe),
    "stopGradientAtInputs": lambda hit, spec, _: stop_gradient_at_inputs(hit, spec.title, spec.safe),
    "im2colRowsOutside": lambda hit, spec, _: im2col_rows_outside(hit, spec.title, spec.safe),
}


def _kernel_calls_again(hit: Hit, apis: tuple[str, ...]) -> bool:
    """Whether a function the kernel reaches calls one of ``apis`` other than at the hit's call."""
    wanted = {api.canonical(a) for a in apis}
    lasts = {a.rpartition(".")[2] for a in wanted}
    ev = hit.ev
    for r in hit.view.reached:
        for cs in r.scope.calls:
            if cs is hit.site or cs.callee_last not in lasts:
                continue
            name = ev.ext_name(ev.value(cs.node.func, cs.scope, ev.order_of(cs)))
            if name is not None and api.canonical(name) in wanted:
                return True
    return False


def _grid_made_static(hit: Hit, spec: FixSpec) -> Fix | None:
    """PAL004's edits for the launch's first grid entry that is not a Python int: the traced
    parameter made static in its jax.jit, or a ``jnp.int32(n)`` of a static ``n`` unwrapped."""
    from dataclasses import replace

    from .dynamic_grid_gpu_interpret import StaticEvaluator, grid_entries, static_argnames_fix, unwrap_fix

    if hit.index.path_of(hit.launch.site.scope) != hit.index.path:
        return None
    se = StaticEvaluator(hit.ev)
    for node, scope, order in grid_entries(hit.ev, hit.launch):
        st = se.of(node, scope, order)
        if st.kind == "dynamic":
            fix = static_argnames_fix(hit.ev, st) or unwrap_fix(hit.ev, se, st, node)
            if fix is None:
                return None
            return replace(fix, title=spec.title.replace("{what}", fix.title), preferred=spec.safe, safe=spec.safe)
    return None


def _with_arguments(hit: Hit, template: str) -> str | None:
    """A replaceCall template with each ``{arg:K}`` replaced by the code of that argument of the
    construct's call and ``{callWithout:K}`` by the call less that argument (None when an
    ``{arg:K}`` is not passed, or the call spreads ``*args``). A statement template is only
    for a call that is a whole statement on its own line; its later lines get that line's
    indentation."""
    site = hit.site
    if site.has_star:
        return None
    missing = False

    def argument(m) -> ast.expr | None:
        key, alt = m.group(2), m.group(3)
        node = hit.ev.posarg(site, int(key)) if key.isdigit() else hit.ev.kwarg(site, key)
        if node is None and alt is not None:
            node = hit.ev.kwarg(site, alt)
        return node

    def code(m) -> str:
        nonlocal missing
        node = argument(m)
        if m.group(1) == "callWithout":
            return call_text(hit.index, site, drop=[node] if node is not None else [])
        if m.group(1) == "call":  # ({call:K=name}: validated to name the keyword it passes)
            return call_text(hit.index, site, drop=[node] if node is not None else [],
                             extra=[f"{m.group(3) or m.group(2)}={m.group(4)}"])
        if node is None:
            missing = True
            return ""
        return hit.code_of(node)

    text = ARG_PLACEHOLDER.sub(code, template)
    if missing:
        return None
    try:
        compile(text, "<fix>", "eval", dont_inherit=True)
        return text
    except SyntaxError:
        pass  # a statement
    indent = statement_indent(site)
    return None if indent is None else text.replace("\n", "\n" + indent)


@functools.lru_cache(maxsize=256)
def _template_tree(value: str) -> ast.Module | None:
    """A fix value or template parsed, its placeholders read as names (None: it does not parse)."""
    try:
        return ast.parse(ARG_PLACEHOLDER.sub("__module__", MODULE_PLACEHOLDER.sub("__module__", value)))
    except SyntaxError:
        return None


def _names_stored(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _binds_taken_name(scope, template: str) -> bool:
    """Whether the template binds a name (a walrus target) the call's function already uses."""
    tree = _template_tree(template)
    return tree is None or not _names_stored(tree).isdisjoint(scope.bindings)


def _compiler_param_edit(hit: Hit, spec: FixSpec, value: str):
    """(edit, import edits) setting ``spec.name`` in the launch's compiler params: on the
    params call written in this module, or, with no params given, ``compiler_params=`` built
    from ``spec.params`` at the launch. None where the params come from elsewhere."""
    index, ev = hit.index, hit.ev
    opt = hit.launch_option("compiler_params")
    if opt is None:
        site = hit.launch.site
        if ev.index.path_of(site.scope) != index.path:
            return None
        params, more = value_in_module(index, spec.params)
        return add_kwarg(index, site.node, site.scope, "compiler_params", f"{params}({spec.name}={value})"), more
    v = ev.value(*opt)
    if not isinstance(v, CallVal) or index.path_of(v.site.scope) != index.path:
        return None
    return add_kwarg(index, v.site.node, v.site.scope, spec.name, value), ()


def _sections(d: Detection) -> tuple[Detection, ...]:
    return (d,) + d.also


def data_rules(records: Iterable[ErrorRecord]) -> list[DataRule]:
    """One rule per detection section a record carries (its ``also`` entries each make one
    more, tied to the same record); a section with a taken code or name loses its rule
    (``detection_problems`` reports it)."""
    out: list[DataRule] = []
    taken: set[str] = set()
    for rec in records:
        if rec.detection is None:
            continue
        for d in _sections(rec.detection):
            if d.code in taken or d.name in taken:
                continue
            taken |= {d.code, d.name}
            out.append(DataRule(rec, d))
    return out


def detection_problems(records: Iterable[ErrorRecord], builtin_codes: set[str]) -> list[str]:
    """Detection sections whose code or name is taken (by a built-in rule or an earlier record)."""
    problems = []
    taken = set(builtin_codes)
    for rec in records:
        if rec.detection is None:
            continue
        for d in _sections(rec.detection):
            for key in (d.code, d.name):
                if key in taken:
                    problems.append(f"{rec.source}: record '{rec.slug}': detection code/name `{key}` is already "
                                    "used by another rule; this detection section is not used")
                    break
            else:
                taken |= {d.code, d.name}
    return problems


def detection_key(records: Iterable[ErrorRecord]) -> tuple:
    """What a rule set built from ``records`` depends on (engines are rebuilt when it changes):
    the detection sections themselves, compared by value (the same records read again give the
    same key)."""
    return tuple((r.slug, r.source, r.detection) for r in records if r.detection is not None)


__all__ = ["DataRule", "data_rules", "detection_key", "detection_problems", "Const"]
