"""Fixes that change a launch's context. PAL511's: the ``with force_*_interpret_mode():``
block extended over the calls it misses, or a launch built before it built again inside it.
PAL510's: a falsy interpret setting on a CPU host made to interpret there.

A launch reads its interpret setting when it is built (``pl.pallas_call``, ``pl.kernel``) or
when it is called (``plgpu.kernel``). Where the read that escapes the context manager is in a
statement right after the ``with`` block (a ``plgpu.kernel`` built inside and called just
after, or a jitted launcher's second call), moving those statements into the block is what ran
clean under jax 0.12 (KINDS.md). A build that happened before the block (read when built) is
moved into it when it is earlier in the same function and serves only the block; one made
elsewhere may serve other code: a copy of it opens the block (:func:`build_in_context`).
"""
from __future__ import annotations

import ast

from ..analysis import api
from ..analysis.contexts import CPU_HOST_REASONS
from ..analysis.findings import Fix, TextEdit
from ..analysis.fixes import add_kwarg, siblings_of, spans_a_string, statement_of, value_in_module
from ..analysis.launches import applied_at
from ..analysis.evaluate import FuncVal
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
    ``with force_*_interpret_mode():`` block of a function that applies it there: the build
    made the block's first statement (the fix that ran clean under jax 0.12). ``{name}`` in
    the title is the name. Only where the build, run there, means the same thing:

    * built in the same function, earlier (in the statement list that holds the block, or one
      around it): the build statement *moves*. It is the name's one binding, every other use
      is inside the block, no name it reads is bound or written to after it, and each call it
      makes is a library's (nothing of the author's that the move would run later);
    * built elsewhere (module level): a *copy* opens the block, the build itself stays for
      whatever else uses it; the function uses the name inside the block only and binds none
      of the names the build reads.

    A build made by a factory (``k = make()``, ``make`` returning the build) is moved the same
    way when ``make`` does nothing else and is not decorated (a cache would hand back the launch
    built outside); it is not copied."""
    index, ctx, launch = hit.index, hit.context, hit.launch
    span = ctx.host_span
    if span is None or launch.api.reads_mode_at != "build" or index.path_of(launch.site.scope) != index.path:
        return None
    marked = _call_at(hit, span)
    block = statement_of(marked) if marked is not None else None
    scope = marked.scope if marked is not None else None
    if not (isinstance(block, ast.With) and scope is not None and scope.kind == "function"
            and _is_setter_with(hit, block, scope) and block.body):
        return None
    fn = scope.node
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(fn)):
        return None
    built = _built_in(hit, block, scope)
    if built is None:
        return None
    build, build_scope, name = built
    inside = {id(n) for s in block.body for n in ast.walk(s)}
    target = build.targets[0]
    uses = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and n is not target]
    if not uses or any(id(n) not in inside for n in uses):
        return None  # (used outside the block: the build there would change what those calls run)
    reads = {n.id for n in ast.walk(build.value) if isinstance(n, ast.Name)}
    if build_scope is scope:
        moved = _moved_into(hit, build, block, scope, name, reads)
        if moved is None:
            return None
        edits = moved
    else:
        if not isinstance(build.value, ast.Call) or build.value is not launch.site.node:
            return None  # (a factory's call is not copied: it may do more than build)
        bound = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        bound |= {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} if hasattr(fn, "args") else set()
        if name in bound or reads & bound:
            return None
        text = _statement_text(index, build, build_scope)
        at = _line_start_of(index, block.body[0], scope)
        if text is None or at is None:
            return None
        edits = (TextEdit(Span(at[0], 0, at[0], 0), _indented(text, at[1])),)
    return Fix(title.replace("{name}", name), edits, preferred=safe, safe=safe)


def _built_in(hit: Hit, block: ast.With, scope) -> tuple[ast.Assign, object, str] | None:
    """The statement that binds the launch the block applies to one name, its scope and the
    name: ``k = pl.kernel(...)`` itself, or ``k = make()`` in the block's function where
    ``make`` only returns the build."""
    launch = hit.launch
    stmt = statement_of(launch.site)
    if _binds_one_name(stmt) and stmt.value is launch.site.node:
        return stmt, launch.site.scope, stmt.targets[0].id
    factory = launch.site.scope
    node = factory.node
    if not (isinstance(stmt, ast.Return) and stmt.value is launch.site.node and factory.kind == "function"
            and isinstance(node, ast.FunctionDef) and not node.decorator_list):
        return None
    body = node.body[1:] if node.body and _is_docstring(node.body[0]) else node.body
    if body != [stmt]:
        return None  # (the factory does more than build: moving its call would move that too)
    applied = {cs.node.func.id for cs in applied_at(hit.ev, launch, handed_on=True)
               if cs.scope is scope and isinstance(cs.node.func, ast.Name) and _holds(block, cs.node)}
    if len(applied) != 1:
        return None
    (name,) = applied
    binds = [s for s in ast.walk(scope.node) if isinstance(s, ast.Assign)
             and any(isinstance(n, ast.Name) and n.id == name for t in s.targets for n in ast.walk(t))]
    if len(binds) != 1 or not _binds_one_name(binds[0]) or not isinstance(binds[0].value, ast.Call):
        return None
    callee = hit.ev.value(binds[0].value.func, scope)
    if not (isinstance(callee, FuncVal) and callee.scope is factory):
        return None
    return binds[0], scope, name


def _moved_into(hit: Hit, build: ast.Assign, block: ast.With, scope, name: str, reads: set[str]):
    """The edits that move ``build`` (in the block's own function) to the block's first
    statement, or None where the build would not mean the same thing there."""
    index, fn = hit.index, scope.node
    body = siblings_of(_Site(build, scope), build)
    if body is None:
        return None
    at = next(i for i, s in enumerate(body) if s is build)
    # Run before the block whatever happens: in the list that holds it or one around it.
    if not any(_holds(s, block) for s in body[at + 1:]):
        return None
    after = (build.end_lineno or build.lineno, build.end_col_offset or 0)
    for n in ast.walk(fn):
        if n is build or (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)) <= after:
            continue
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and n.id in reads | {name}:
            return None  # (rebound after the build: read elsewhere than it was)
        if isinstance(n, (ast.Attribute, ast.Subscript)) and not isinstance(n.ctx, ast.Load) \
                and _base_name(n) in reads:
            return None  # (a value the build reads, changed in place after it)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name in reads:
            return None
        if isinstance(n, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name).split(".")[0] in reads
                                                               for a in n.names):
            return None
    # Every call the build makes is a library's: running it later runs nothing of the author's.
    calls = [c for c in ast.walk(build.value) if isinstance(c, ast.Call)]
    factory_call = build.value if build.value is not hit.launch.site.node else None
    for c in calls:
        if c is not factory_call and hit.ev.ext_name(hit.ev.value(c.func, scope)) is None:
            return None
    text = _statement_text(index, build, scope)
    first = _line_start_of(index, block.body[0], scope)
    where = index.span(build, scope)
    if text is None or first is None:
        return None
    return (TextEdit(Span(where.line, 0, where.end_line + 1, 0), ""),
            TextEdit(Span(first[0], 0, first[0], 0), _indented(text, first[1])))


class _Site:
    """A statement's position as ``siblings_of`` asks for it (a scope and a node)."""

    def __init__(self, node: ast.AST, scope) -> None:
        self.node, self.scope = node, scope


def _binds_one_name(stmt) -> bool:
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _base_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _statement_text(index, stmt: ast.stmt, scope) -> list[str] | None:
    """The statement's lines, less their indentation, where it has its lines to itself (nothing
    before it on its first line, nothing but a comment after it) and no string spans them."""
    where = index.span(stmt, scope)
    lines = index.lines()
    text = lines[where.line - 1:where.end_line]
    col = where.col
    if spans_a_string(stmt) or text[0][:col].strip() or text[-1][where.end_col:].strip()[:1] not in ("", "#") \
            or any(line.strip() and not line.startswith(" " * col) for line in text):
        return None
    return [line[col:] for line in text]


def _line_start_of(index, stmt: ast.stmt, scope) -> tuple[int, int] | None:
    """The statement's line and column where it starts its line (a block's body written on the
    ``with`` line has no line to insert before)."""
    where = index.span(stmt, scope)
    return None if index.lines()[where.line - 1][:where.col].strip() else (where.line, where.col)


def _indented(text: list[str], col: int) -> str:
    return "".join(" " * col + line + "\n" if line.strip() else "\n" for line in text)


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
