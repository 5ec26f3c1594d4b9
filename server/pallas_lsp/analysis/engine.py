"""The analysis entry point: source text in, findings out.

    text ──► ModuleIndex (cached per block) ──► launches + contexts ──► reach
         ──► rules ──► findings (deduplicated, suppressions applied)
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from .contexts import Context, Mode
from .evaluate import Evaluator, Value
from .findings import Finding, Fix, Related, Severity
from .launches import ContextResolver, Launch, LaunchFinder, _enclosing_function
from .module import ModuleIndex, Span
from .reach import Reached, reach
from .scopes import CallSite, DecoratorSite

SYNTAX_CODE = "PAL900"
UNKNOWN_SUPPRESSION_CODE = "PAL901"
_SUPPRESS = re.compile(r"#\s*pallas-lsp:\s*ignore(?:\[([^\]]*)\])?", re.IGNORECASE)


@dataclass
class LaunchView:
    """A launch, with what rules need to look at it."""

    launch: Launch
    ev: Evaluator
    index: ModuleIndex
    reached: list[Reached]
    all_launches: list[Launch] = field(default_factory=list)


@dataclass
class ConstructHit:
    """A call reached from a kernel, in one of the kernel's contexts."""

    call: CallSite
    callee: Value
    api: str | None
    view: LaunchView
    context: Context
    reached: Reached

    @property
    def ev(self) -> Evaluator:
        return self.view.ev

    @property
    def launch(self) -> Launch:
        return self.view.launch

    def result_unused(self) -> bool:
        """The call's result is dropped or bound to names nothing reads."""
        if self.call.use == "expr":
            return True
        if self.call.use != "assign" or not self.call.targets:
            return False
        scope = self.call.scope
        for name in self.call.targets:
            if any(s.loads.get(name, 0) for s in scope.walk()):
                return False
        return True


@dataclass
class Candidate:
    rule: object
    span: Span
    hit_key: tuple
    launch: Launch
    context: Context
    actual_error: str
    headline: str
    chain: tuple[CallSite | DecoratorSite, ...]
    extra_related: tuple[Related, ...] = ()
    fixes: tuple[Fix, ...] = ()


@dataclass
class AnalysisResult:
    path: str | None
    findings: list[Finding]
    launches: list[Launch]
    index: ModuleIndex
    reached: dict[int, list[Reached]] = field(default_factory=dict)  # id(launch) -> reach

    @property
    def syntax_errors(self):
        return self.index.syntax_errors


def describe_context(ctx: Context) -> str:
    """"launched with `interpret=True` (line 19)" and the like."""
    line = ctx.mode_line
    where = f" (line {line})" if line else ""
    how = ctx.decided_by
    by = f" by {ctx.caller}" if ctx.caller and ctx.caller != "module level" else ""
    if ctx.forced:
        text = f"launched inside `{how}`{where}"
    elif ctx.mode.is_interpret:
        text = f"launched with `{how}`{by}{where}"
        if not ctx.certain:
            text += ", which interprets on CPU hosts"
    elif ctx.cuda_lowering:
        text = f"compiled for CUDA ({how}{where})"
    else:
        text = f"compiled ({how}{where})"
    return text


class Engine:
    def __init__(self, rules: Sequence[object] | None = None) -> None:
        from ..rules import all_rules

        self.rules = list(rules) if rules is not None else all_rules()

    def analyse(self, text: str, path: str | None = None, *, select: Iterable[str] | None = None,
                ignore: Iterable[str] = ()) -> AnalysisResult:
        index = ModuleIndex(text, path)
        ev = Evaluator(index)
        launches = LaunchFinder(index, ev).find()
        ContextResolver(index, ev, launches).resolve_all()
        rules = self._active(select, ignore)
        construct_rules = [r for r in rules if type(r).check_construct is not _base_check_construct()]
        candidates: list[Candidate] = []
        reached_by_launch: dict[int, list[Reached]] = {}
        callee_cache: dict[int, tuple[Value, str | None]] = {}
        for launch in launches:
            if not launch.kernels:
                continue
            reached = reach(ev, launch.kernels)
            reached_by_launch[id(launch)] = reached
            view = LaunchView(launch, ev, index, reached, launches)
            for ctx in launch.contexts:
                if ctx.mode == Mode.UNKNOWN:
                    continue
                for rule in rules:
                    for cand in rule.check_launch(view, ctx):  # type: ignore[attr-defined]
                        candidates.append(cand)
                if not construct_rules:
                    continue
                for r in reached:
                    for cs in r.scope.calls:
                        if not ev.guards_hold(cs.guards, cs.scope, ev.order_of(cs)):
                            continue
                        cached = callee_cache.get(id(cs))
                        if cached is None:
                            v = ev.value(cs.node.func, cs.scope, ev.order_of(cs))
                            cached = (v, ev.ext_name(v))
                            callee_cache[id(cs)] = cached
                        hit = ConstructHit(cs, cached[0], cached[1], view, ctx, r)
                        for rule in construct_rules:
                            err = rule.check_construct(hit)  # type: ignore[attr-defined]
                            if err:
                                candidates.append(Candidate(
                                    rule, index.span(cs.node, cs.scope), (rule.code, id(cs.node)), launch, ctx,
                                    err, rule.headline(hit), r.chain + (cs,),  # type: ignore[attr-defined]
                                    tuple(rule.related(hit)), tuple(rule.fixes(hit))))  # type: ignore[attr-defined]
        findings = self._merge(candidates, index)
        findings += [Finding(SYNTAX_CODE, "syntax-error", None, Severity.ERROR, f"Syntax error: {e.message}", e.span)
                     for e in index.syntax_errors]
        findings = self._suppress(findings, index)
        findings.sort(key=Finding.sort_key)
        return AnalysisResult(path, findings, launches, index, reached_by_launch)

    def _active(self, select, ignore) -> list[object]:
        sel = {s.strip() for s in select} if select else None
        ign = {s.strip() for s in ignore}
        out = []
        for r in self.rules:
            keys = {r.code, r.name}  # type: ignore[attr-defined]
            if sel is not None and not (keys & sel) and not any(r.code.startswith(s) for s in sel):  # type: ignore[attr-defined]
                continue
            if keys & ign:
                continue
            out.append(r)
        return out

    def _merge(self, candidates: list[Candidate], index: ModuleIndex) -> list[Finding]:
        groups: dict[tuple, list[Candidate]] = {}
        for c in candidates:
            groups.setdefault(c.hit_key, []).append(c)
        out: list[Finding] = []
        for group in groups.values():
            group.sort(key=lambda c: (not c.context.certain, c.launch.line, c.context.mode_line or 0))
            first = group[0]
            rule = first.rule
            certain = any(c.context.certain for c in group)
            kernel = first.launch.kernel_name
            msg = (f"{first.headline}: kernel `{kernel}` is {describe_context(first.context)}"
                   f"; JAX raises {first.actual_error}")
            if len(group) > 1:
                others = {(c.launch.line, c.context.mode_line) for c in group[1:]}
                others.discard((first.launch.line, first.context.mode_line))
                if others:
                    msg += f" (and {len(others)} more launch context{'s' if len(others) > 1 else ''})"
            related: list[Related] = []
            seen: set[tuple[int, str]] = set()

            def add(span: Span, text: str) -> None:
                key = (span.line, text)
                if key not in seen:
                    seen.add(key)
                    related.append(Related(span, text))

            for c in group:
                add(c.launch.anchor, f"kernel `{c.launch.kernel_name}` launched here ({c.context.mode.words})")
                for e in c.context.evidence:
                    add(e.span, f"mode decided here: {e.note}")
                for step in c.chain[:-1]:
                    node = step.node if isinstance(step, CallSite) else step.node
                    add(index.span(node, step.scope),
                        "called from the kernel" if isinstance(step, CallSite) else "traced by this decorator")
                for r in c.extra_related:
                    add(r.span, r.message)
            chain_names = tuple(_chain_names(first))
            out.append(Finding(
                rule.code, rule.name, rule.record,  # type: ignore[attr-defined]
                Severity.ERROR if certain else Severity.WARNING, msg, first.span, tuple(related),
                first.fixes, first.actual_error, tuple(c.context for c in group), kernel, first.launch.line,
                chain_names))
        return out

    def _suppress(self, findings: list[Finding], index: ModuleIndex) -> list[Finding]:
        known = {r.code for r in self.rules} | {r.name for r in self.rules} | {SYNTAX_CODE}  # type: ignore[attr-defined]
        lines = index.text.splitlines()
        comments: dict[int, set[str] | None] = {}
        extra: list[Finding] = []
        for i, text in enumerate(lines, 1):
            if "pallas-lsp" not in text:
                continue
            m = _SUPPRESS.search(text)
            if not m:
                continue
            if m.group(1) is None:
                comments[i] = None
                continue
            codes = {c.strip() for c in m.group(1).split(",") if c.strip()}
            comments[i] = codes
            for c in sorted(codes - known):
                col = m.start()
                extra.append(Finding(UNKNOWN_SUPPRESSION_CODE, "unknown-suppression", None, Severity.WARNING,
                                     f"Unknown pallas-lsp code `{c}` in ignore comment",
                                     Span(i, col, i, m.end())))
        if not comments:
            return findings + extra
        kept = []
        for f in findings:
            codes = comments.get(f.span.line, False)
            if codes is None or (codes and (f.code in codes or f.rule in codes)):
                continue
            kept.append(f)
        return kept + extra


def _base_check_construct():
    from ..rules.base import Rule

    return Rule.check_construct


def _chain_names(c: Candidate) -> list[str]:
    names = []
    for step in c.chain:
        fn = _enclosing_function(step.scope)
        if fn is not None:
            names.append(fn.name)
    return names


_DEFAULT: Engine | None = None


def analyse(text: str, path: str | None = None, **kw) -> AnalysisResult:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Engine()
    return _DEFAULT.analyse(text, path, **kw)


__all__ = ["AnalysisResult", "ConstructHit", "Engine", "LaunchView", "analyse", "describe_context"]
