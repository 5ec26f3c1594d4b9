"""The analysis entry point: source text in, findings out.

    text ──► ModuleIndex (cached per block) ──► launches + contexts ──► reach
         ──► rules ──► findings (deduplicated, suppressions applied)
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from .caches import AnalysisCaches
from . import api
from .contexts import Context, Evidence, JaxRelease, Mode
from .evaluate import Evaluator, Value
from .findings import Finding, Fix, Related, Severity
from .rule_api import Hit, LaunchView, Report, Rule, RuleSet, call_keys
from .fixes import KernelLaunches, launches_of_kernel, offered
from .incremental import Deps, Entry, Layout, ModuleMemo, change_between
from .launches import ContextResolver, Launch, LaunchFinder, _enclosing_function
from .module import ModuleIndex, Span
from .reach import Reached, reach
from .transforms import MAX_HOPS as TRANSFORM_HOPS, WORDS as TRANSFORM_WORDS
from .scopes import CallSite, DecoratorSite
from .suppression import Suppression, find_suppression

SYNTAX_CODE = "PAL900"
UNKNOWN_SUPPRESSION_CODE = "PAL901"
_MEMO_LIMIT = 512  # documents whose launch results are kept for their next edit


@dataclass
class Candidate:
    """One rule's report on one hit, before reports of the same construct are merged."""

    rule: Rule
    report: Report
    hit: Hit
    span: Span
    chain: tuple[CallSite | DecoratorSite, ...]
    path: str | None = None  # the module of the construct
    launch_path: str | None = None  # the module of the launch
    kernel: str | None = None  # the kernel that reaches the construct (None: the launch's first)

    @property
    def hit_key(self) -> tuple:
        # (A construct that raises different errors in different contexts is one finding per error.)
        return (self.rule.code, self.report.key if self.report.key is not None else id(self.hit.site.node),
                self.report.record)

    @property
    def launch(self) -> Launch:
        return self.hit.launch

    @property
    def context(self) -> Context:
        return self.hit.context

    @property
    def kernel_name(self) -> str:
        if self.kernel:
            return self.kernel
        if self.context.kernels:  # a context that runs only some of the launch's kernels
            return _kernel_label(self.context.kernels[0]) or self.launch.kernel_name
        return self.launch.kernel_name

    def build_fixes(self) -> tuple[Fix, ...]:
        if not self.report.fixable:
            return ()
        # (a fix naming an API the checked release lacks could not run there)
        return offered(self.rule.fixes(self.hit, self.report), self.hit.release)


class LaunchList:
    """A module's launches with what their kernels reach. Launches kept from an earlier text
    carry that text's positions: they are moved to this one when first asked for."""

    def __init__(self, parts: list[tuple[Launch, Layout | None, list[Reached]]], index: ModuleIndex) -> None:
        self._parts = parts
        self._index = index
        self._launches: list[Launch] | None = None
        self._reached: dict[int, list[Reached]] = {}

    @property
    def launches(self) -> list[Launch]:
        if self._launches is None:
            out = []
            for launch, layout, reached in self._parts:
                if layout is not None and not layout.is_identity(self._index):
                    launch = _moved(launch, layout, self._index)
                out.append(launch)
                self._reached[id(launch)] = reached
            self._launches = out
        return self._launches

    @property
    def reached(self) -> dict[int, list[Reached]]:
        self.launches  # noqa: B018 - materialise
        return self._reached


def _kernel_counts(launches: list, launch: Launch) -> tuple[int, ...]:
    """How often each of the launch's kernels is launched in the module (a fix that moves a
    buffer into a kernel's scratch is offered only for a kernel launched once)."""
    return tuple(launches_of_kernel(launches, k) for k in launch.kernels)


def _transform_key(transforms) -> tuple:
    """The transformations reaching a launch, by node (a re-parsed block is a change)."""
    return tuple((t.api, id(t.site.node)) for t in transforms)


def _transform_positions(transforms) -> tuple:
    """Where the transformations reaching a launch are written: what a report about them
    underlines, in this module or the one that applies them."""
    return tuple((t.span, t.through) for t in transforms)


def _moved(launch: Launch, layout: Layout, index: ModuleIndex) -> Launch:
    def span(s: Span) -> Span:
        d = layout.shift_for(s.line, index)
        return s if d == 0 else Span(s.line + d, s.col, s.end_line + d, s.end_col)

    contexts = [replace(c, evidence=tuple(replace(e, span=span(e.span)) for e in c.evidence)) for c in launch.contexts]
    options = {k: (node, scope, (index.offset_of(scope), order[1]) if order is not None else None)
               for k, (node, scope, order) in launch.options.items()}
    return replace(launch, anchor=span(launch.anchor), contexts=contexts, options=options)


class AnalysisResult:
    def __init__(self, path: str | None, findings: list[Finding], launches: LaunchList, index: ModuleIndex,
                 evaluator: Evaluator | None = None) -> None:
        self.path = path
        self.findings = findings
        self.index = index
        self._launches = launches
        # The evaluator the rules read this text with (its cross-module facts too), for facts
        # worked out only when asked (analysis/launch_report.py).
        self.evaluator = evaluator

    @property
    def launches(self) -> list[Launch]:
        return self._launches.launches

    @property
    def reached(self) -> dict[int, list[Reached]]:  # id(launch) -> what its kernel reaches
        return self._launches.reached

    @property
    def syntax_errors(self):
        return self.index.syntax_errors


def describe_context(ctx: Context, launch_path: str | None = None, home: str | None = None) -> str:
    """"launched with `interpret=True` (line 19)" and the like; lines in another module than
    ``home`` (the file the message is shown in) are given with their path."""
    line = ctx.mode_line
    ev_path = (ctx.evidence[0].path if ctx.evidence else None) or launch_path
    if not line:
        where = ""
    elif ev_path and home and ev_path != home:
        where = f" ({_rel(ev_path, home)}:{line})"
    else:
        where = f" (line {line})"
    how = ctx.decided_by
    caller = ctx.caller if ctx.caller and ctx.caller != "module level" else ""
    if ctx.assumed in ASSUMED_COMPILED:
        written = ctx.evidence[0].note.split("; written: ", 1)[-1] if ctx.evidence else "launched otherwise"
        text = (f"assumed to be compiled for {ASSUMED_COMPILED[ctx.assumed]} (--assume-compiled "
                f"{ctx.assumed.split(':', 1)[1]}; the code has it {written})")
    elif ctx.assumed:
        text = (f"assumed to be launched with {ASSUMED_WORDS[ctx.assumed]} (--assume-interpret {ctx.assumed}; "
                f"the code compiles it{where})")
    elif ctx.forced:
        text = f"launched inside `{how}`{where}"
    elif ctx.mode.is_interpret:
        value = f"`{how}`"
        if how.endswith(" (default)"):  # a parameter's default decides: say so outside the code
            value = f"the default `{how[:-len(' (default)')]}`"
        # (A caller in another module names its own file and line.)
        text = f"launched with {value} by {caller}" if caller and "(" in caller else \
            f"launched with {value}{where}{' by ' + caller if caller else ''}"
        if not ctx.certain:
            text += ", which interprets on CPU hosts"
    elif ctx.cpu_host and ctx.host_reason == "configured":
        note = ctx.evidence[1].note if len(ctx.evidence) > 1 else "no interpret setting"
        text = f"compiled on a CPU host ({how}; {note})"
    elif ctx.cpu_host:
        text = f"compiled on a CPU host ({how}{where})"
    elif ctx.cuda_lowering:
        text = f"compiled for CUDA ({how}{where})"
    elif ctx.configured:
        text = f"compiled for {BACKEND_WORDS.get(ctx.mode, ctx.mode.value)} (the `backends` setting; {how}{where})"
    elif ctx.lowered_for == "tpu":
        text = f"compiled for TPU ({how}{where})"
    elif how.endswith(" (default)"):
        text = f"compiled (the default `{how[:-len(' (default)')]}`{', ' + where.strip()[1:-1] if where else ''})"
    else:
        text = f"compiled ({how}{where})"
    return text


class Engine:
    def __init__(self, rules: RuleSet | Sequence[Rule], *, incremental: bool = False,
                 caches: AnalysisCaches | None = None) -> None:
        """``rules``: the rule set to run (``pallas_lsp.rules.default_rule_set()``: the built-in
        rules and those of the records' detection sections). ``incremental``: keep each
        document's launch results for its next edit (the language server; a batch run analyses
        each file once and keeps nothing). ``caches``: the block parses and file texts this
        engine keeps (another engine's, to share them: a one-off engine for a request of the
        server's; None: its own)."""
        self.rules = rules if isinstance(rules, RuleSet) else RuleSet(rules)
        self.incremental = incremental
        self.caches = caches if caches is not None else AnalysisCaches()
        self._memos: OrderedDict[str, ModuleMemo] = OrderedDict()
        self._memo_lock = threading.Lock()

    def forget(self, path: str) -> None:
        """The document was closed: drop what was kept for its next edit."""
        with self._memo_lock:
            self._memos.pop(path, None)

    def clear_caches(self) -> None:
        """Start afresh: no block parse, split, file text or launch result is kept."""
        with self._memo_lock:
            self._memos.clear()
        self.caches.clear()

    def analyse(self, text: str, path: str | None = None, *, select: Iterable[str] | None = None,
                ignore: Iterable[str] = (), backends: Iterable[str] = (),
                assume_interpret: str | None = None, release: JaxRelease | None = None,
                assume_compiled: str | None = None) -> AnalysisResult:
        """One module on its own. ``backends``: the accelerators the code ships to (the
        ``backends`` setting), for compiled launches whose backend the code does not say.
        ``assume_interpret`` ("true", "tpu", "gpu"): analyse compiled launches as if launched in
        that interpret mode (what would break when debugging on a CPU). ``assume_compiled``
        ("tpu"): analyse interpreted launches as if compiled for that backend (what the chip
        would reject)."""
        rules = self._active(select, ignore)
        ship = ContextOptions.of(backends, assume_interpret, release, assume_compiled)
        if not (self.incremental and path):
            return self._analyse(text, path, rules, None, ship)
        with self._memo_lock:
            memo = self._memos.pop(path, None) or ModuleMemo((), [], None)
            self._memos[path] = memo
            while len(self._memos) > _MEMO_LIMIT:
                self._memos.popitem(last=False)
            return self._analyse(text, path, rules, memo, ship)

    def _analyse(self, text: str, path: str | None, rules: RuleSet, memo: ModuleMemo | None,
                 options: "ContextOptions | None" = None) -> AnalysisResult:
        index = ModuleIndex(text, path, cache=self.caches.parses)
        ev = Evaluator(index)
        launches, candidates = self._collect(index, ev, rules, memo, options)
        findings = self._finish(self._merge(candidates, index), index)
        return AnalysisResult(path, findings, launches, index, ev)

    def analyse_in(self, program, path: str, *, select: Iterable[str] | None = None,
                   ignore: Iterable[str] = (), backends: Iterable[str] = (),
                   assume_interpret: str | None = None, release: JaxRelease | None = None,
                   assume_compiled: str | None = None) -> AnalysisResult:
        """A module as part of the workspace: launches in the modules that import it and in the
        modules it imports are followed too, so a helper open alone shows what reaches it, and a
        test that launches an imported kernel shows where that kernel fails."""
        import os

        path = os.path.abspath(path)
        got = program.load(path)
        if got is None:
            return self.analyse("", path, select=select, ignore=ignore, release=release)  # (no text: no launch)
        index, ev = got
        rules = self._active(select, ignore)
        units = [path]
        imported = program.imports_with_packages(path)
        # A transformation here may reach a launch through modules in between (jax.grad of a
        # model's loss that calls a kernel's function): those launches' modules are analysed
        # too, for the findings that sit here only.
        through = _imported_through(program, imported, TRANSFORM_HOPS - 1) \
            if program.mentions(path, TRANSFORM_WORDS) else set()
        importers = program.importers_of(path)
        through -= imported | set(importers)
        for p in importers + sorted(imported) + sorted(through):
            # A module that cannot launch adds no candidates of its own: it is read only where
            # a launch's analysis asks for it (a caller deciding a mode), and never indexed else.
            if p not in units and program.concerns_pallas(p) and program.can_launch(p):
                units.append(p)
        candidates: list[Candidate] = []
        launches = LaunchList([], index)
        ship = ContextOptions.of(backends, assume_interpret, release, assume_compiled)
        rules_key = rules.key + ship.key
        for unit in units:
            ugot = program.load(unit)
            if ugot is None:
                continue
            uindex, uev = ugot
            key = (unit, rules_key)
            cached = program.unit_cache.get(key)
            if cached is None or cached[0] is not uindex:
                with program.track() as deps:
                    collected = self._collect(uindex, uev, rules, None, ship)
                cached = (uindex, collected, deps)
                program.unit_cache[key] = cached
            else:
                program.read_again(cached[2])  # (this analysis depends on what the unit read)
            ls, cands = cached[1]
            if unit in through:
                cands = [c for c in cands if c.path == path]
            candidates += cands
            if unit == path:
                launches = ls
        merged = self._merge(candidates, index)
        mine: list[Finding] = []
        for f in merged:
            fpath = f.path or path
            if fpath == path:
                mine.append(replace(f, path=None))
                continue
            # The construct is elsewhere: say so where this module launches the kernel or decides
            # its mode.
            secondary = _secondary(f, path, fpath)
            if secondary is not None:
                mine.append(secondary)
        findings = self._finish(mine, index)
        return AnalysisResult(path, findings, launches, index, ev)

    def _finish(self, findings: list[Finding], index: ModuleIndex) -> list[Finding]:
        findings = findings + [Finding(SYNTAX_CODE, "syntax-error", None, Severity.ERROR,
                                       f"Syntax error: {e.message}", e.span) for e in index.syntax_errors]
        findings = self._suppress(findings, index)
        findings.sort(key=Finding.sort_key)
        return findings

    def _collect(self, index: ModuleIndex, ev: Evaluator, rules: RuleSet, memo: ModuleMemo | None = None,
                 options: "ContextOptions | None" = None):
        """Launches, their contexts and reach, and the rules' candidates. With ``memo`` (the
        previous analysis of the same document), launches whose inputs did not change are
        reused instead of recomputed (see incremental.py)."""
        options = options or ContextOptions()
        rules_key = rules.key + options.key
        ev.tracking = memo is not None
        ev.launch_facts = {}  # (the rules of a launch share its facts, for this pass only)
        try:
            return self._collect_pass(index, ev, rules, memo, options, rules_key)
        finally:
            ev.launch_facts = None

    def _collect_pass(self, index: ModuleIndex, ev: Evaluator, rules: RuleSet, memo: ModuleMemo | None,
                      options: "ContextOptions", rules_key: tuple):
        change = None
        if memo is not None and memo.parses:
            change = change_between(memo.parses, index.parses)
            if change.reordered:
                change = None
        finder = LaunchFinder(index, ev, memo.wrappers if memo is not None else None, change)
        items = finder.items()
        resolver = ContextResolver(index, ev, [], options.release)
        keep = memo is not None and not resolver.module_wide
        fingerprint = finder.fingerprint()
        previous: dict[int, Entry] = {}
        if memo is not None and keep and change is not None and memo.rules_key == rules_key \
                and memo.fingerprint == fingerprint:
            previous = memo.entries
        # 1. Each item's launch: reused, or found now (recording what it reads).
        entries: list[Entry] = []
        computed: list[Entry] = []
        for item in items:
            e = previous.get(id(item))
            if e is not None and e.item is item and change is not None \
                    and e.deps.still_valid(change):
                entries.append(e)
                continue
            e = Entry(item, None)
            self._recording(ev, index, e.deps if keep else None)
            e.launch = finder.launch_of(item)
            entries.append(e)
            computed.append(e)
        launches: list[Launch] = KernelLaunches()  # (fixes ask how often each kernel is launched)
        kept: list[Entry] = []
        sites: set[int] = set()
        for e in entries:
            found = e.launch
            if found is None:
                kept.append(e)
            elif id(found.site.node) not in sites:
                sites.add(id(found.site.node))
                launches.append(found)
                kept.append(e)
        # 2. Contexts and reach of the launches found now.
        # (Module-wide facts: what they read belongs to no one launch, and the kept launches
        # they concern are checked against them below.)
        self._recording(ev, index, None)
        resolver.launches = launches
        lowered = resolver._lowered_launches()
        transformed = resolver.transforms.transformed(launches)
        if memo is not None and memo.entries:
            # What reaches a launch depends on the whole module: a reused launch keeps its
            # findings only while the same transformations reach it (fresh ones: positions).
            fresh = {id(e) for e in computed}
            for e in kept:
                if e.launch is None or id(e) in fresh:
                    continue
                now = tuple(transformed.get(id(e.launch), ()))
                if _transform_key(now) != _transform_key(e.launch.transforms):
                    memo.entries = {}
                    return self._collect(index, ev, rules, memo, options)
                if _transform_positions(now) != _transform_positions(e.launch.transforms):
                    # The same transformations, moved (their blocks are no read of the launch,
                    # so its layout does not see it): its kept reports underline the old lines.
                    e.candidates = None
                e.launch.transforms = now
        live = {id(e) for e in kept}
        for e in computed:
            launch = e.launch
            if launch is None or id(e) not in live:
                continue
            self._recording(ev, index, e.deps if keep else None)
            launch.contexts = options.apply(resolver.resolve(launch, lowered.get(id(launch))), launch, resolver)
            launch.transforms = tuple(transformed.get(id(launch), ()))
            e.reached = reach(ev, launch.kernels) if launch.kernels else []
        # 3. The rules, over the launches found now, in the order of the text.
        def line_now(e: Entry) -> tuple[int, int]:
            assert e.launch is not None
            a = e.launch.anchor
            return (a.line + (e.layout.shift_for(a.line, index) if e.layout is not None else 0), a.col)

        ordered = sorted((e for e in kept if e.launch is not None), key=line_now)
        # Reports of reused launches are kept only where nothing they rest on could differ
        # without their tracked reads showing it (incremental.py).
        reports_kept = bool(previous) and change is not None and change.same_bindings
        candidates: list[Candidate] = []
        callee_cache: dict[int, tuple[Value | None, tuple[str, ...]]] = {}
        computed_ids = {id(e) for e in computed}
        for e in ordered:
            launch = e.launch
            if launch is None or not launch.kernels:
                continue
            if id(e) not in computed_ids:
                if not e.reported:
                    continue
                in_place = e.layout is None or e.layout.is_identity(index)
                if reports_kept and in_place and e.candidates is not None \
                        and e.kernel_counts == _kernel_counts(launches, launch):
                    # Reused, and nothing it read moved: its reports are what the rules would
                    # say now. Their views are pointed at this text, which fixes are built from.
                    for view in {id(c.hit.view): c.hit.view for c in e.candidates}.values():
                        view.ev, view.index, view.all_launches = ev, index, launches
                    candidates += e.candidates
                    continue
                # Reused, and its rules reported: they run again on the current text (its reads
                # are unchanged, so are its findings, but not their positions).
                if not in_place:
                    launch = _moved(launch, e.layout, index)
                self._recording(ev, index, None)
                before = len(candidates)
                self._check(launch, e.reached, ev, index, rules, launches, {}, candidates, options.release)
                # (Reports are kept in the positions of the text the layout describes only.)
                e.candidates = candidates[before:] if in_place else None
                e.kernel_counts = _kernel_counts(launches, launch)
                continue
            self._recording(ev, index, e.deps if keep else None)
            before = len(candidates)
            # (A shared callee cache would hide what one launch reads behind another's.)
            self._check(launch, e.reached, ev, index, rules, launches,
                        {} if keep else callee_cache, candidates, options.release)
            e.reported = len(candidates) > before
            if keep:
                e.candidates, e.kernel_counts = candidates[before:], _kernel_counts(launches, launch)
        self._recording(ev, index, None)
        for c in candidates:
            if c.launch_path is None:
                c.launch_path = index.path_of(c.launch.scope)
            if c.path is None:
                c.path = c.launch_path
        if memo is not None and keep:
            for e in computed:
                e.layout = Layout.of(index, e.deps)
            memo.rules_key, memo.fingerprint, memo.parses = rules_key, fingerprint, list(index.parses)
            # (Not the launches dropped as duplicates: their contexts were never worked out.)
            memo.entries = {id(e.item): e for e in kept}
            memo.wrappers = finder.wrapper_verdicts
        elif memo is not None:
            memo.entries, memo.parses, memo.fingerprint, memo.wrappers = {}, [], None, {}
        parts = [(e.launch, e.layout if id(e) not in computed_ids else None, e.reached) for e in ordered]
        return LaunchList(parts, index), candidates

    @staticmethod
    def _recording(ev: Evaluator, index: ModuleIndex, deps: Deps | None) -> None:
        ev.deps = deps
        index.deps = deps

    def _check(self, launch: Launch, reached: list[Reached], ev: Evaluator, index: ModuleIndex, rules: RuleSet,
               launches: list[Launch], callee_cache: dict, candidates: list[Candidate],
               release: JaxRelease = JaxRelease()) -> None:
        """Each context of the launch: the launch's rules, then each reached call to the rules
        that name its API (a call no rule names costs a lookup)."""
        whole = LaunchView(launch, ev, index, reached, launches, release)
        per_kernels: dict[tuple[int, ...], LaunchView] = {}
        launch_rules = [r for r in rules.for_launch(launch.api.name) if r.raised_in(release)]

        def check_reached(rule: Rule, hit: Hit, r: Reached, site) -> None:
            """A call or operator the kernel reaches (at ``site``, in ``r``), to one rule."""
            found = rule.check(hit)
            if found is not None:
                candidates.append(Candidate(
                    rule, found, hit, found.span or hit.span, r.chain + (site,),
                    path=index.path_of(site.scope), kernel=_kernel_label(r.root)))

        for ctx in launch.contexts:
            if ctx.mode == Mode.UNKNOWN:
                continue
            view = whole
            if ctx.kernels is not None:  # this context runs only some of the launch's kernels
                key = tuple(id(k) for k in ctx.kernels)
                got = per_kernels.get(key)
                if got is None:
                    got = per_kernels[key] = LaunchView(launch, ev, index, reach(ev, list(ctx.kernels)), launches,
                                                                    release)
                view = got
            if launch_rules:
                plain = Hit("launch", launch.api.name, launch.site, view, ctx)
                for rule in launch_rules:
                    # A rule about a transformation sees the launch once per transformation of
                    # its kinds (or named by it) that reaches it; the others see the launch itself.
                    hits = [replace(plain, transform=t) for t in launch.transforms if t.matches(rule.transforms)] \
                        if rule.transforms else [plain]
                    for hit in hits:
                        if rule.applies(hit):
                            report = rule.check(hit)
                            if report is not None:
                                # (A transformation underlined in the module that applies it.)
                                t = hit.transform
                                where = t.site.scope if t is not None and report.span is t.span else launch.site.scope
                                candidates.append(Candidate(
                                    rule, report, hit, report.span or hit.span, (),
                                    path=index.path_of(where)))
            if not rules.has_call_rules:
                continue
            for r in view.reached:
                rev = ev.other(r.scope)
                for cs in r.scope.calls:
                    cached = callee_cache.get(id(cs))
                    if cached is None:
                        order = rev.order_of(cs)
                        if not rev.guards_hold(cs.guards, cs.scope, order):
                            cached = (None, ())
                        else:
                            v = rev.value(cs.node.func, cs.scope, order)
                            cached = (v, tuple(call_keys(rev, v, cs.node.func)))
                        callee_cache[id(cs)] = cached
                    callee, keys = cached
                    for key in keys:
                        for rule in rules.for_call(key):
                            hit = Hit("call", key, cs, view, ctx, r, callee)
                            if rule.raised_in(release) and rule.applies(hit):
                                check_reached(rule, hit, r, cs)
                # Array operators written without a call (x.T, x[...]), for the rules that name them.
                for op in r.scope.operators:
                    op_rules = rules.for_call(op.key)
                    guarded = None  # (the guards are evaluated only for a rule that applies here)
                    for rule in op_rules:
                        hit = Hit("operator", op.key, op, view, ctx, r)
                        if not (rule.raised_in(release) and rule.applies(hit)):
                            continue
                        if guarded is None:
                            guarded = rev.guards_hold(op.guards, op.scope, rev.order_of(op))
                        if not guarded:
                            break
                        check_reached(rule, hit, r, op)

    def _active(self, select, ignore) -> RuleSet:
        return self.rules.subset(select, ignore)

    def _merge(self, candidates: list[Candidate], index: ModuleIndex) -> list[Finding]:
        groups: dict[tuple, list[Candidate]] = {}
        for c in candidates:
            groups.setdefault(c.hit_key, []).append(c)
        out: list[Finding] = []
        for group in groups.values():
            group.sort(key=lambda c: (not c.context.certain, c.launch_path != c.path, c.launch.line,
                                      c.context.mode_line or 0))
            first = group[0]
            rule = first.rule
            certain = any(c.context.certain and not c.report.warning for c in group)
            kernel = first.kernel_name
            where = ""
            if first.launch_path and first.launch_path != first.path:
                where = f" (launch at {_rel(first.launch_path, first.path)}:{first.launch.line})"
            assumed = first.context.assumed
            msg = (f"{'What if (' + assumed_flag(assumed) + '): ' if assumed else ''}"
                   f"{first.report.headline}: kernel `{kernel}` is "
                   f"{describe_context(first.context, first.launch_path, first.path)}{where}"
                   f"; JAX raises {first.report.error}")
            if len(group) > 1:
                others = {(c.launch_path, c.launch.line, c.context.mode_line) for c in group[1:]}
                others.discard((first.launch_path, first.launch.line, first.context.mode_line))
                if others:
                    msg += f" (and {len(others)} more launch context{'s' if len(others) > 1 else ''})"
            related: list[Related] = []
            seen: set[tuple] = set()
            home = first.path

            def add(span: Span, text: str, path: str | None) -> None:
                rel_path = None if path in (None, home) else path
                key = (rel_path, span.line, text)
                if key not in seen:
                    seen.add(key)
                    related.append(Related(span, text, rel_path))

            for c in group:
                add(c.launch.anchor, f"kernel `{c.kernel_name}` launched here ({c.context.words})",
                    c.launch_path)
                for e in c.context.evidence:
                    add(e.span, f"mode decided here: {e.note}", e.path or c.launch_path)
                for step in c.chain[:-1]:
                    add(index.span(step.node, step.scope),
                        "called from the kernel" if isinstance(step, CallSite) else "traced by this decorator",
                        index.path_of(step.scope))
                t = c.hit.transform
                if t is not None:
                    add(t.span, f"the launch is {t.verb} here (`{t.api}`)", index.path_of(t.site.scope))
                    for span, path, text in t.through:
                        add(span, text, path)
                for r in c.report.related:
                    add(r.span, r.message, r.path or c.path)
            chain_names = tuple(_chain_names(first))
            # Fix edits carry no path: offer them only when everything they touch is in the
            # construct's module. They are built when a client asks (Finding.fixes).
            local = first.launch_path == first.path and not any(e.path for e in first.context.evidence)
            out.append(Finding(
                rule.code, rule.name, first.report.record or rule.record,
                Severity.ERROR if certain else Severity.WARNING, msg, first.span, tuple(related),
                first.build_fixes if local and first.report.fixable else None, first.report.error,
                tuple(c.context for c in group), kernel, first.launch.line, chain_names,
                path=first.path, extra={"launch_paths": sorted({c.launch_path or "" for c in group}),
                                        **({"assumed": assumed} if assumed else {}),
                                        **({"instead": first.report.instead} if first.report.instead else {})}))
        return out

    def _suppress(self, findings: list[Finding], index: ModuleIndex) -> list[Finding]:
        known = {c.upper() for c in self.rules.codes()} | {SYNTAX_CODE}
        if not index.may_hold_suppression():  # (the common case: no comment to read)
            return findings
        # Lines as the parser counts them (str.splitlines would also split at \f, \v, \x1c...).
        lines = index.lines()
        comments: dict[int, Suppression] = {}
        extra: list[Finding] = []
        for i, text in enumerate(lines, 1):
            found = find_suppression(text)
            if found is None:
                continue
            comments[i] = found
            for c in sorted({c for c in found.codes or () if c.upper() not in known}):
                extra.append(Finding(UNKNOWN_SUPPRESSION_CODE, "unknown-suppression", None, Severity.WARNING,
                                     f"Unknown pallas-lsp code `{c}` in ignore comment",
                                     Span(i, found.start, i, found.end)))
        if not comments:
            return findings + extra
        kept = []
        for f in findings:
            found = comments.get(f.span.line)
            if found is not None and found.covers(f.code, f.rule):
                continue
            kept.append(f)
        return kept + extra


BACKEND_MODES = {"tpu": Mode.TPU, "triton": Mode.TRITON, "mosaic_gpu": Mode.MOSAIC_GPU}
BACKEND_WORDS = {Mode.TPU: "Mosaic TPU", Mode.TRITON: "Triton", Mode.MOSAIC_GPU: "Mosaic GPU"}


ASSUMED_MODES = {"true": Mode.INTERPRET, "tpu": Mode.TPU_INTERPRET, "gpu": Mode.GPU_INTERPRET}
ASSUMED_WORDS = {"true": "interpret=True", "tpu": "TPU interpret params", "gpu": "GPU interpret params"}
# ``--assume-compiled``: the backends an interpreted launch can be assumed compiled for (a
# context's ``assumed`` is "compiled:<backend>").
ASSUMED_COMPILED = {"compiled:tpu": "TPU"}
# The modes a launch assumed compiled for TPU keeps: GPU interpret params and Mosaic GPU launches
# (plgpu.kernel, GPU meshes) are GPU code. A pl.pallas_call that only its GPU compiler params
# make a GPU launch is portable code: assumed on the chip, those params are what it rejects.
_KEPT_WHEN_COMPILED = frozenset({Mode.GPU_INTERPRET, Mode.TRITON, Mode.MOSAIC_GPU, Mode.TPU})
_PORTED_WHEN_COMPILED = frozenset({Mode.TRITON, Mode.MOSAIC_GPU})


def assumed_flag(assumed: str) -> str:
    """The option that makes a context assumed: ``--assume-interpret gpu``, ``--assume-compiled tpu``."""
    if assumed in ASSUMED_COMPILED:
        return f"--assume-compiled {assumed.split(':', 1)[1]}"
    return f"--assume-interpret {assumed}"


@dataclass(frozen=True)
class ContextOptions:
    """What the caller says about contexts the code does not: the backends it ships to, and an
    interpret mode to assume for compiled launches (``--assume-interpret``)."""

    backends: tuple[str, ...] = ()
    assume_interpret: str | None = None
    release: JaxRelease = JaxRelease()  # the jax release the code is checked against
    assume_compiled: str | None = None  # "tpu": interpreted launches analysed as compiled for it

    @staticmethod
    def of(backends: Iterable[str] = (), assume_interpret: str | None = None,
           release: JaxRelease | None = None, assume_compiled: str | None = None) -> "ContextOptions":
        if assume_interpret is not None and assume_interpret not in ASSUMED_MODES:
            raise ValueError(f"assume_interpret must be one of {', '.join(ASSUMED_MODES)}, not {assume_interpret!r}")
        if assume_compiled is not None and f"compiled:{assume_compiled}" not in ASSUMED_COMPILED:
            raise ValueError(f"assume_compiled must be one of "
                             f"{', '.join(k.split(':')[1] for k in ASSUMED_COMPILED)}, not {assume_compiled!r}")
        if assume_interpret is not None and assume_compiled is not None:
            raise ValueError("assume_interpret and assume_compiled exclude each other")
        return ContextOptions(normalise_backends(backends), assume_interpret, release or JaxRelease(),
                              assume_compiled)

    @property
    def key(self) -> tuple:
        return self.backends + ((f"assume:{self.assume_interpret}",) if self.assume_interpret else ()) \
            + ((f"assume-compiled:{self.assume_compiled}",) if self.assume_compiled else ()) \
            + ((f"jax:{self.release.version}",) if self.release.version else ())

    def apply(self, contexts: list[Context], launch: Launch, resolver: ContextResolver) -> list[Context]:
        if self.assume_interpret is not None:
            return with_assumed_interpret(contexts, launch, self.assume_interpret)
        contexts = with_backends(contexts, self.backends, launch, resolver)
        if self.assume_compiled is not None:
            return with_assumed_compiled(contexts, launch, self.assume_compiled)
        return contexts


def with_assumed_compiled(contexts: list[Context], launch: Launch, backend: str) -> list[Context]:
    """Interpreted, unknown and backend-less compiled contexts as one context compiled for
    ``backend`` ("tpu"); contexts the code already gives a backend (or GPU interpret params)
    keep theirs. The assumed context's note says how the code launches it."""
    assumed = f"compiled:{backend}"
    out: list[Context] = []
    seen = False
    for c in contexts:
        ported = c.mode in _PORTED_WHEN_COMPILED and launch.api.name == api.PALLAS_CALL and c.lowered_for is None
        if c.mode in _KEPT_WHEN_COMPILED and not c.cpu_host and not ported:
            out.append(c)
        elif not seen:
            seen = True
            written = describe_context(c)
            note = (f"assumed: compiled for {ASSUMED_COMPILED[assumed]} (--assume-compiled {backend}); "
                    f"written: {written}")
            out.append(Context(Mode.TPU, (Evidence(launch.anchor, note),), assumed=assumed,
                               via=c.via, kernels=c.kernels, self_class=c.self_class))
    return out


def with_assumed_interpret(contexts: list[Context], launch: Launch, assumed: str) -> list[Context]:
    """Compiled and unknown contexts as the assumed interpret mode (default params: the GPU
    interpreter's ``inline_mgpu="error"``); interpret contexts keep theirs."""
    out: list[Context] = []
    seen = False
    for c in contexts:
        if c.mode.is_interpret:
            out.append(c)
        elif not seen:
            seen = True  # (one assumed context, whatever the compiled ones were)
            note = f"assumed: {ASSUMED_WORDS[assumed]} (--assume-interpret {assumed})"
            out.append(Context(ASSUMED_MODES[assumed], (Evidence(launch.anchor, note),), assumed=assumed,
                               via=c.via, kernels=c.kernels, self_class=c.self_class))
    return out


def normalise_backends(backends: Iterable[str]) -> tuple[str, ...]:
    """The known backend names of a ``backends`` setting, sorted and deduplicated."""
    return tuple(sorted({b for b in backends if b in BACKEND_MODES or b == CPU_BACKEND}))


# ``backends = ["cpu"]``: the code also runs on CPU hosts (a laptop, CI without accelerators).
CPU_BACKEND = "cpu"
CPU_SETTING_NOTE = "the `backends` setting lists cpu"


def with_backends(contexts: list[Context], backends: tuple[str, ...], launch: Launch,
                  resolver: ContextResolver) -> list[Context]:
    """A compiled context whose backend the code does not say, as one context per accelerator
    the code ships to (the ``backends`` setting); the others as they are. With ``cpu`` listed,
    each compiled context that runs where the program runs, and that no branch on the host
    keeps off a CPU host, also runs on one, where Pallas only interprets: one context more."""
    if not backends:
        return contexts
    accelerators = [b for b in backends if b in BACKEND_MODES]
    on_cpu = CPU_BACKEND in backends
    out: list[Context] = []
    for c in contexts:
        these = [c]
        # (A launch whose compiler params say its backend keeps it: a TPU project's GPU-only
        # modules are correct code. --assume-compiled is the way to ask about a port.)
        if c.mode == Mode.COMPILED and not c.cpu_host and accelerators:
            these = [replace(c, mode=BACKEND_MODES[b], configured=True,
                             lowering_semantics="warpgroup" if BACKEND_MODES[b] == Mode.MOSAIC_GPU else None)
                     for b in accelerators]
        if on_cpu and c.compiled_on_this_host and resolver.reached_on_cpu_host(launch, c):
            these = these + [replace(c, cpu_host=True, host_reason="configured", host_span=None, configured=True,
                                     evidence=(Evidence(launch.anchor, CPU_SETTING_NOTE),) + c.evidence)]
        out.extend(these)
    return out


def _rel(path: str | None, base: str | None) -> str:
    import os

    if not path:
        return ""
    try:
        return os.path.relpath(path, os.path.dirname(base)) if base else path
    except ValueError:
        return path


def _secondary(f: Finding, here: str, there: str) -> Finding | None:
    """For a construct in another module, a finding in this one: at the launch (or the line
    that decides the mode) that lives here."""
    anchor = None
    for r in f.related:
        if r.path in (here,) or (r.path is None and there == here):
            if r.message.startswith("kernel ") or r.message.startswith("mode decided here"):
                anchor = r
                break
    if anchor is None:
        return None
    msg = (f"{f.message.split(': kernel ')[0]} in {_rel(there, here)}:{f.span.line} — reached from here. "
           f"{f.message}")
    related = (Related(f.span, "the construct that fails", there),) + tuple(
        Related(r.span, r.message, None if r.path == here else (r.path or there)) for r in f.related if r is not anchor)
    return replace(f, span=anchor.span, message=msg, related=related, fix_builder=None, path=None, secondary=True)


def _kernel_label(kernel) -> str | None:
    if kernel is None:
        return None
    return kernel.name if kernel.kind != "lambda" else "<lambda>"


def _chain_names(c: Candidate) -> list[str]:
    names = []
    for step in c.chain:
        fn = _enclosing_function(step.scope)
        if fn is not None:
            names.append(fn.name)
    return names


__all__ = ["AnalysisResult", "Engine", "LaunchView", "describe_context"]


def _imported_through(program, start: set[str], hops: int) -> set[str]:
    """What the modules of ``start`` import, through up to ``hops`` more steps, keeping to
    modules that concern Pallas (the others lead to no launch)."""
    out: set[str] = set()
    frontier = [p for p in start if program.concerns_pallas(p)]
    for _ in range(hops):
        after = []
        for p in frontier:
            for q in program.imports_of(p):
                if q not in start and q not in out and program.concerns_pallas(q):
                    out.add(q)
                    after.append(q)
        frontier = after
    return out
