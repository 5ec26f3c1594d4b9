"""Fixes that change a launch's context. PAL511's: the ``with force_*_interpret_mode():``
block extended over the calls it misses, or a launch built before it built again inside it.
PAL510's: a falsy interpret setting on a CPU host made to interpret there.

A launch reads its interpret setting when it is built (``pl.pallas_call``, ``pl.kernel``) or
when it is called (``plgpu.kernel``). Where the read that escapes the context manager is in a
statement right after the ``with`` block (a ``plgpu.kernel`` built inside and called just
after, or a jitted launcher's second call), moving those statements into the block is what ran
clean under jax 0.12 (KINDS.md). A build that happened before the block (read when built) is
not moved, it may serve other code: a copy of it opens the block (:func:`build_in_context`).
"""
from __future__ import annotations

import ast

from ..analysis import api
from ..analysis.contexts import CPU_HOST_REASONS
from ..analysis.findings import Fix, TextEdit
from ..analysis.fixes import add_kwarg, siblings_of, spans_a_string, statement_of, value_in_module
from ..analysis.launches import applied_at
from ..analysis.module import Span
from ..analysis.rule_api import Hit
from ..analysis.scopes import CallSite

_SETTERS = (api.FORCE_GPU_INTERPRET, api.FORCE_TPU_INTERPRET)


def extend_context(hit: Hit, title: str, safe: bool) -> Fix | None:
    """The statements after the ``with`` up to the last one holding a read of the launch that
    the block misses, indented into it. None unless the block and those reads are in one
    statement list of the hit's module, each of those statements holding a read."""
    index, ctx = hit.index, hit.context
    span = ctx.host_span
    if span is None or index.path_of(hit.launch.site.scope) != index.path:
        return None
    marked = _call_at(hit, span)
    if marked is None:
        return None
    stmt = statement_of(marked)
    if stmt is None:
        return None
    body = siblings_of(marked, stmt)
    if body is None:
        return None
    at = next(i for i, s in enumerate(body) if s is stmt)
    scope = marked.scope
    if isinstance(stmt, ast.With) and _is_setter_with(hit, stmt, scope):
        # The setter's own block misses the reads: those after it, applications of a launch
        # read when called.
        block, first = stmt, at + 1
        if hit.launch.api.reads_mode_at != "call":
            return None
        reads = [cs.node for cs in applied_at(hit.ev, hit.launch) if cs.scope is scope]
        last = max((i for i in range(first, len(body)) if any(_holds(body[i], n) for n in reads)), default=None)
    else:
        # A read that escapes: the statement holding it, after the setter's block.
        block = next((body[i] for i in range(at - 1, -1, -1) if isinstance(body[i], ast.With)
                      and _is_setter_with(hit, body[i], scope)), None)
        if block is None:
            return None
        first, last = body.index(block) + 1, at
        reads = [marked.node]
    if last is None or last < first or not block.body:
        return None
    moved = body[first:last + 1]
    # Only statements that read the launch's mode move: another statement moved in would run
    # its own launches interpreted too.
    if any(spans_a_string(s) or not any(_holds(s, n) for n in reads) for s in moved):
        return None
    outer = index.span(block, scope).col
    inner = index.span(block.body[0], scope).col
    unit = " " * (inner - outer) if inner > outer else None
    lines = index.lines()
    start = index.span(block, scope).end_line + 1  # (comments between the block and them move too)
    end = index.span(moved[-1], scope).end_line
    if unit is None or any(lines[i - 1].strip() and not lines[i - 1].startswith(" " * outer)
                           for i in range(start, end + 1)):
        return None
    edits = tuple(TextEdit(Span(i, 0, i, 0), unit) for i in range(start, end + 1) if lines[i - 1].strip())
    return Fix(title, edits, preferred=safe, safe=safe)


def _call_at(hit: Hit, span: Span) -> CallSite | None:
    index = hit.index
    for _, bp in index.parses:
        if bp.root is None:
            continue
        for s in bp.scopes():
            for cs in s.calls:
                if index.path_of(s) == index.path and index.span(cs.node, s) == span:
                    return cs
    return None


def _is_setter_with(hit: Hit, stmt: ast.With, scope) -> bool:
    """Whether the ``with`` enters ``plgpu.force_gpu_interpret_mode()`` / ``pltpu.force_tpu_interpret_mode()``."""
    ev = hit.ev
    for item in stmt.items:
        func = getattr(item.context_expr, "func", None)
        if func is not None and api.canonical(ev.ext_name(ev.value(func, scope)) or "") in _SETTERS:
            return True
    return False


def _holds(stmt: ast.stmt, node: ast.AST) -> bool:
    return any(n is node for n in ast.walk(stmt))


def build_in_context(hit: Hit, title: str, safe: bool) -> Fix | None:
    """A launch read when built (``pl.pallas_call``, ``pl.kernel``), bound to a name before the
    ``with force_*_interpret_mode():`` block of a function that calls it there: a copy of that
    build as the block's first statement (the fix that ran clean under jax 0.12). The build
    itself stays, for whatever else uses it. Only where the copy means the same thing: the
    block is in a function whose every use of the name is inside it, that binds none of the
    names the build reads, all in the hit's module; ``{name}`` in the title is the name."""
    index, ctx, launch = hit.index, hit.context, hit.launch
    span = ctx.host_span
    if span is None or launch.api.reads_mode_at != "build" or index.path_of(launch.site.scope) != index.path:
        return None
    build = statement_of(launch.site)
    if not (isinstance(build, ast.Assign) and build.value is launch.site.node and len(build.targets) == 1
            and isinstance(build.targets[0], ast.Name)) or spans_a_string(build):
        return None
    name = build.targets[0].id
    marked = _call_at(hit, span)
    block = statement_of(marked) if marked is not None else None
    scope = marked.scope if marked is not None else None
    if not (isinstance(block, ast.With) and scope is not None and scope.kind == "function"
            and _is_setter_with(hit, block, scope) and block.body) or scope is launch.site.scope:
        return None
    fn = scope.node
    inside = {id(n) for s in block.body for n in ast.walk(s)}
    uses = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name]
    if not uses or any(id(n) not in inside for n in uses):
        return None  # (used outside the block: the copy would change what those calls run)
    reads = {n.id for n in ast.walk(build.value) if isinstance(n, ast.Name)}
    bound = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    bound |= {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} if hasattr(fn, "args") else set()
    if name in bound or reads & bound or any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(fn)):
        return None
    lines = index.lines()
    first, last = index.span(build, launch.site.scope), index.span(build, launch.site.scope).end_line
    body_at = index.span(block.body[0], scope)
    col = first.col
    text = lines[first.line - 1:last]
    if any(line.strip() and not line.startswith(" " * col) for line in text):
        return None
    copied = "".join(" " * body_at.col + line[col:] + "\n" if line.strip() else "\n" for line in text)
    return Fix(title.replace("{name}", name), (TextEdit(Span(body_at.line, 0, body_at.line, 0), copied),),
               preferred=safe, safe=safe)


# An interpret value written before `or` needs no parentheses if it is one of these.
_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)
_HOST_TEST = '{jax}.default_backend() == "cpu"'


def interpret_on_cpu_hosts(hit: Hit, title: str, safe: bool) -> Fix | None:
    """PAL510's fix: the launch made to interpret where the code runs or lowers it for a CPU.
    With no ``interpret=``, it gets ``interpret=jax.default_backend() == "cpu"`` (or ``True``
    when it is lowered for cpu explicitly, which fails on any host). With one that is falsy
    there (``interpret=False``, a parameter whose default or caller says False, an inverted
    host test), its value ``v`` becomes ``v or <that>``: whatever it selects elsewhere it keeps
    (params objects are truthy); a literal False/None, or the inverted test itself, is
    replaced. The launch's keyword is edited, never a parameter's default, which would be
    evaluated when the function is defined, before the platform may be settled."""
    ctx = hit.context
    if not ctx.cpu_host or ctx.host_reason not in CPU_HOST_REASONS:
        return None
    index = hit.index
    value, imports = ("True", ()) if ctx.host_reason == "lowered" else value_in_module(index, _HOST_TEST)
    got = hit.launch_option("interpret")
    if got is None:
        site = hit.launch.site
        if index.path_of(site.scope) != index.path:
            return None
        edit = add_kwarg(index, site.node, site.scope, "interpret", value)
        return Fix(title.replace("{value}", value), (edit,) + imports, safe=safe)
    node, scope, _ = got
    if index.path_of(scope) != index.path:
        return None
    span = index.span(node, scope)
    decided_here = ctx.host_reason == "host-test" and ctx.evidence and ctx.evidence[0].span == span
    if decided_here or (isinstance(node, ast.Constant) and not node.value):
        text = value
    else:
        code = index.code_of(node, scope)
        if not code or "\n" in code:
            return None
        text = f"{code if isinstance(node, _ATOMS) else f'({code})'} or {value}"
    return Fix(title.replace("{value}", text), (TextEdit(span, text),) + imports, safe=safe)
