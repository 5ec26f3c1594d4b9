"""Building blocks for quick fixes: small, exact text edits on calls, defs and imports.

Every fix a rule offers is checked against real JAX by the oracle suite
(tests/oracle): applied to the rule's INVALID examples, the program must run clean.
"""
from __future__ import annotations

import ast
import os
import re
from typing import Callable, Sequence

from . import api
from .findings import Finding, Fix, TextEdit
from .contexts import JaxRelease, Mode
from .evaluate import FuncVal
from .module import ModuleIndex, Span
from .scopes import Scope
from .suppression import find_suppression, with_code


class _OnFirstUse:
    """``cst_edits`` (and libcst, a tenth of a second to import) loaded when a fix is first
    built: ``check`` without ``--fix`` and a server that only publishes never build one."""

    def __getattr__(self, name: str):
        from . import cst_edits as module

        return getattr(module, name)


cst_edits = _OnFirstUse()


def _args_in_order(call: ast.Call) -> list[ast.AST]:
    """Positional arguments and keywords of a call, in source order."""
    items: list[ast.AST] = [*call.args, *call.keywords]
    return sorted(items, key=lambda a: (a.lineno, a.col_offset))


def _owner(index: ModuleIndex, scope: Scope | None) -> ModuleIndex:
    """The index of the module whose text holds ``scope`` (its positions are in that text)."""
    return index.index_of(scope) if scope is not None else index


def _checked(owner: ModuleIndex, edit: TextEdit) -> TextEdit:
    """``edit`` when the text still parses with it (a fix that would not parse is never offered)."""
    if not cst_edits.edits_parse(owner.text, owner.blocks, (edit,)):
        raise cst_edits.EditFailed("the edited code would not parse")
    return edit


def add_kwarg(index: ModuleIndex, call: ast.Call, scope: Scope, name: str, value: str) -> TextEdit:
    """Add ``name=value`` to a call, or replace the value when the keyword is there (built with
    libcst on the call's block: comments, trailing commas and line breaks kept). Raises
    :class:`cst_edits.EditFailed` when the result would not parse."""
    owner = _owner(index, scope)
    span = index.span(call, scope)
    try:
        edit = cst_edits.set_keyword(owner.text, owner.blocks, span, name, value)
    except cst_edits.EditFailed:
        if not cst_edits.parses(f"({value})"):
            raise
        return _checked(owner, _column_add_kwarg(index, call, scope, name, value))
    if edit is None:  # (it already reads so: the value "replaced" by itself)
        kw = next(k for k in call.keywords if k.arg == name)
        return TextEdit(index.span(kw.value, scope), value)
    return edit


def remove_kwarg(index: ModuleIndex, call: ast.Call, scope: Scope, name: str) -> TextEdit | None:
    """Remove the keyword ``name`` and its comma from a call (libcst, as ``add_kwarg``); None when
    the call has no such keyword."""
    if not any(k.arg == name for k in call.keywords):
        return None
    owner = _owner(index, scope)
    try:
        return cst_edits.remove_keyword(owner.text, owner.blocks, index.span(call, scope), name)
    except cst_edits.EditFailed:
        edit = _column_remove_kwarg(index, call, scope, name)
        return _checked(owner, edit) if edit is not None else None


def _column_add_kwarg(index: ModuleIndex, call: ast.Call, scope: Scope, name: str, value: str) -> TextEdit:
    """``add_kwarg`` from ast columns alone, for a block libcst cannot read."""
    for k in call.keywords:
        if k.arg == name:
            return TextEdit(index.span(k.value, scope), value)
    args = _args_in_order(call)
    if args:
        last = index.span(args[-1], scope)
        return TextEdit(Span(last.end_line, last.end_col, last.end_line, last.end_col), f", {name}={value}")
    end = index.span(call, scope)
    return TextEdit(Span(end.end_line, end.end_col - 1, end.end_line, end.end_col - 1), f"{name}={value}")


def _column_remove_kwarg(index: ModuleIndex, call: ast.Call, scope: Scope, name: str) -> TextEdit | None:
    """``remove_kwarg`` from ast columns alone, for a block libcst cannot read."""
    args = _args_in_order(call)
    for i, a in enumerate(args):
        if not isinstance(a, ast.keyword) or a.arg != name:
            continue
        span = index.span(a, scope)
        if i + 1 < len(args):
            nxt = index.span(args[i + 1], scope)
            return TextEdit(Span(span.line, span.col, nxt.line, nxt.col), "")
        if i > 0:
            prev = index.span(args[i - 1], scope)
            return TextEdit(Span(prev.end_line, prev.end_col, span.end_line, span.end_col), "")
        return TextEdit(span, "")
    return None


def local_name_for(index: ModuleIndex, qualified: str) -> str | None:
    """How this module refers to ``qualified`` (a module or a name): ``plgpu`` for
    jax.experimental.pallas.mosaic_gpu when imported as such; None when not imported."""
    best: tuple[int, str] | None = None
    for name, bs in index.scope.bindings.items():
        for b in bs:
            if b.kind != "import":
                continue
            q = api.canonical(b.qualified)
            if q == qualified:
                return name
            if qualified.startswith(q + "."):
                cand = name + qualified[len(q):]
                if best is None or len(cand) < best[0]:
                    best = (len(cand), cand)
    return best[1] if best else None


def _module_imported_as(index: ModuleIndex, module: str) -> str | None:
    """The name the module itself is imported under (``plgpu``, or the dotted path of a plain
    ``import jax.experimental.pallas.mosaic_gpu``); None when only a parent package is imported:
    ``pl.mosaic_gpu`` is not an attribute of ``jax.experimental.pallas`` until someone imports it."""
    for name, bs in index.scope.bindings.items():
        for b in bs:
            if b.kind != "import":
                continue
            if api.canonical(b.qualified) == module:
                return name
            if isinstance(b.stmt, ast.Import) and any(
                    a.asname is None and api.canonical(a.name) == module for a in b.stmt.names):
                return module
    return None


# The names Pallas code conventionally gives its modules (the documentation's own).
CONVENTIONAL_ALIASES = {
    api.PL: "pl",
    api.PLGPU: "plgpu",
    api.PLTPU: "pltpu",
    "jax.numpy": "jnp",
}


def _uses_from_imports(index: ModuleIndex) -> bool:
    """Whether the module imports jax's modules ``from jax.x import y`` style (else ``import jax.x.y``)."""
    styles = set()
    for bs in index.scope.bindings.values():
        for b in bs:
            if b.kind == "import" and b.qualified.startswith("jax.") and b.stmt is not None:
                styles.add(isinstance(b.stmt, ast.ImportFrom))
    return styles == {True}


def ensure_import(index: ModuleIndex, module: str) -> tuple[str, TextEdit | None]:
    """The local name of ``module`` and, when it is not imported, an edit importing it the way
    the module imports jax's modules (``from jax.experimental.pallas import mosaic_gpu as plgpu``
    beside ``from jax.experimental import pallas as pl``; ``import ... as plgpu`` beside plain
    imports), placed by libcst's ``AddImportsVisitor``. The conventional alias is used only
    when the module does not use that name already."""
    name = _module_imported_as(index, module)
    if name is not None:
        return name, None
    alias = CONVENTIONAL_ALIASES.get(module)
    if alias is not None and re.search(rf"\b{re.escape(alias)}\b", index.text):
        alias = None  # the name is taken (or at least written): the full module name is safe
    parent, _, leaf = module.rpartition(".")
    if alias is not None and parent and _uses_from_imports(index):
        plan = (parent, leaf, alias if alias != leaf else None)
        local = alias
    else:
        plan = (module, None, alias)
        local = alias or module
    try:
        edit = cst_edits.add_import(index.text, *plan, blocks=index.blocks)
    except cst_edits.EditFailed:  # (a module libcst cannot read: before the first import)
        return module, _column_import(index, module)
    return local, edit


MODULE_PLACEHOLDER = re.compile(r"\{([A-Za-z_][\w.]*)\}")


def value_in_module(index: ModuleIndex, template: str) -> tuple[str, tuple[TextEdit, ...]]:
    """Code written with modules by their qualified names, in this module's words:
    ``{jax.experimental.pallas.mosaic_gpu}.InterpretGPUParams()`` becomes
    ``mgpu.InterpretGPUParams()`` where the module imports it as ``mgpu`` (and, where it is not
    imported, ``plgpu.InterpretGPUParams()`` with the edit importing it). A fix value written as
    ``plgpu.X`` would be a NameError in a module that calls it something else."""
    edits: list[TextEdit] = []

    def local(m: re.Match) -> str:
        name, edit = ensure_import(index, m.group(1))
        if edit is not None and edit not in edits:
            edits.append(edit)
        return name

    return MODULE_PLACEHOLDER.sub(local, template), tuple(edits)


def _column_import(index: ModuleIndex, module: str) -> TextEdit:
    line = 1
    for block, bp in index.parses:
        first = block.text.lstrip()
        if block.kind == "module" and (first.startswith("import ") or first.startswith("from ")) \
                and not first.startswith("from __future__"):
            line = block.start_line
            break
    return TextEdit(Span(line, 0, line, 0), f"import {module}\n")


def suppression_fix(text_line: str, line: int, finding: Finding) -> Fix:
    """"Ignore PALxxx on this line": extend the line's ``# pallas-lsp: ignore[...]`` comment (read
    by the same parser as the engine's, in any letter case), or add one."""
    stripped = text_line.rstrip("\r\n")
    found = find_suppression(stripped)
    if found is not None and found.codes is not None:
        edit = TextEdit(Span(line, found.codes_start, line, found.codes_end), with_code(found, finding.code))
    else:
        end = len(stripped)
        edit = TextEdit(Span(line, end, line, end), f"  # pallas-lsp: ignore[{finding.code}]")
    return Fix(f"Ignore {finding.code} on this line", (edit,), preferred=False, kind="quickfix")


class KernelLaunches(list):
    """A module's launches (a list), counting the launches of each kernel once for all the
    fixes that ask: a count per hit made 20,000 launches of one kernel cost 20,000²."""

    _counts: dict[int, int] | None = None
    _counted: int = -1

    def of_kernel(self, kernel: Scope) -> int:
        if self._counts is None or self._counted != len(self):  # (counted again if it grew)
            self._counts, self._counted = self._count(), len(self)
        return self._counts.get(id(kernel), 0)

    def _count(self) -> dict[int, int]:
        counts: dict[int, int] = {}
        for launch in self:
            for k in {id(k) for k in launch.kernels}:
                counts[k] = counts.get(k, 0) + 1
        return counts


def launches_of_kernel(launches: list, kernel: Scope) -> int:
    """How many of ``launches`` launch ``kernel``."""
    if isinstance(launches, KernelLaunches):
        return launches.of_kernel(kernel)
    return sum(1 for launch in launches if kernel in launch.kernels)


def run_compiled_fix(index: ModuleIndex, launch, context) -> Fix | None:
    """"Run compiled": drop the launch's literal ``interpret=`` (never preferred: compiled
    kernels need a GPU/TPU host; on a CPU host JAX says only interpret mode is supported)."""
    if not context.from_launch_keyword or context.forced:
        return None
    site = launch.option_sites.get("interpret")
    if site is None:
        return None
    edit = remove_kwarg(index, site.node, site.scope, "interpret")
    if edit is None:
        return None
    return Fix("Run compiled instead: remove `interpret=` (needs a GPU or TPU host)", (edit,), preferred=False)


def _single_target_assignment(hit) -> str | None:
    if hit.call.use != "assign" or len(hit.call.targets) != 1:
        return None
    return hit.call.targets[0]


def _binding_statement(hit):
    """The statement ``name = pl.get_global(...)`` that binds the hit's call."""
    scope = hit.call.scope
    for b in scope.bindings.get(hit.call.targets[0], []):
        if b.node is hit.call.node and b.stmt is not None:
            return b.stmt
    return None


def move_to_scratch_fix(hit, title: str, what: str | None = None, *, safe: bool = True) -> Fix | None:
    """Turn ``name = pl.get_global(WHAT)`` in a kernel into kernel scratch: ``WHAT`` goes into the
    launch's scratch list and ``name`` becomes a new last parameter of the kernel. Only where
    that is unambiguous (:func:`new_scratch_edits`), for a call that is the whole right-hand side
    of a statement of the kernel's own body (not under an ``if`` or ``with``). The three edits are
    built with libcst (the statement's comments above it stay, the def's and the list's layout is
    kept); none is offered unless the edited text parses."""
    name = _single_target_assignment(hit)
    if name is None or hit.call.guards or hit.call.withs or len(hit.launch.kernels) != 1 \
            or hit.launch.kernel.function_def is None or len(hit.launch.kernel.function_def.body) < 2:
        return None
    what_node = hit.ev.posarg(hit.call, 0)
    if what_node is None:
        return None
    index = hit.ev.index
    what = what if what is not None else index.code_of(what_node, hit.call.scope)  # (or a replacement)
    stmt = _binding_statement(hit)
    if stmt is None:
        return None
    owner = _owner(index, hit.call.scope)
    try:
        delete = cst_edits.delete_statement(owner.text, owner.blocks, index.span(stmt, hit.call.scope))
    except cst_edits.EditFailed:
        return None
    got = new_scratch_edits(hit, [(what, name)], also=(delete,), fresh=False)
    if got is None:
        return None
    key, edits = got
    return Fix(title.format(key=key, what=what), edits, preferred=True, safe=safe)


def new_scratch_edits(hit, buffers: Sequence[tuple[str, str]], also: tuple[TextEdit, ...] = (), *,
                      fresh: bool = True) -> tuple[str, tuple[TextEdit, ...]] | None:
    """(the launch's scratch keyword, edits) that allocate more kernel scratch buffers: each
    ``(what, name)`` of ``buffers`` appended to the launch's scratch list (or the keyword added)
    and ``name`` a new last parameter of the kernel, with ``also`` (the edits that use them).
    Only where that is unambiguous: the hit's call is in the kernel itself, the kernel is a
    plain def with positional parameters only (none called ``name``, which, ``fresh``, it does
    not bind either: the statement ``also`` deletes may bind it), launched by this one launch, whose
    scratch list (if any) is a literal list, all in the hit's module; and where the edited text
    parses."""
    ev, launch = hit.ev, hit.launch
    index = ev.index
    if len(launch.kernels) != 1 or hit.reached.scope is not launch.kernel:
        return None
    kernel = launch.kernel
    fdef = kernel.function_def
    if fdef is None or launch.api.name == api.CORE_MAP or "grid_spec" in launch.options:
        return None
    if launch.api.name == api.PL_KERNEL and hit.context.mode == Mode.MOSAIC_GPU:
        # Mosaic GPU lowers pl.kernel as an mpmd_map, which takes no scratch operands
        # ("Scratch operands are not supported by the Mosaic GPU mpmd_map lowering"; plgpu.kernel does).
        return None

    if not isinstance(launch.kernel_value, FuncVal):
        return None  # partials and wrappers shift parameters: leave to the author
    p = fdef.args
    params = [*p.posonlyargs, *p.args]
    names = [name for _, name in buffers]
    if p.vararg is not None or p.kwarg is not None or p.kwonlyargs or p.defaults or not params \
            or len(set(names)) != len(names) or any(a.arg in names for a in params) \
            or (fresh and any(name in kernel.bindings for name in names)):
        return None
    if launches_of_kernel(hit.view.all_launches, kernel) > 1:
        return None
    owner = _owner(index, hit.call.scope)
    if _owner(index, kernel) is not owner or _owner(index, launch.site.scope) is not owner:
        return None  # (the edits of one fix land in one file)
    key = launch.api.scratch_keyword
    text, blocks = owner.text, owner.blocks
    try:
        edits = [*also, cst_edits.append_parameter(text, blocks, index.span(fdef, kernel), names)]
        whats = [what for what, _ in buffers]
        existing = launch.options.get(key)
        if existing is not None:
            node, scope, _ = existing
            if not isinstance(node, (ast.List, ast.Tuple)) or _owner(index, scope) is not owner:
                return None
            edits.append(cst_edits.append_element(text, blocks, index.span(node, scope), whats))
        else:
            edits.append(add_kwarg(index, launch.site.node, launch.site.scope, key, f"[{', '.join(whats)}]"))
    except cst_edits.EditFailed:
        return None
    if not cst_edits.edits_parse(text, blocks, edits):
        return None
    return key, tuple(edits)


def statement_of(site) -> ast.stmt | None:
    """The statement of the call's own function (or module) that holds the call."""
    body = getattr(site.scope.node, "body", None) if site.scope.node is not None else None
    if body is None:
        return None
    call = site.node
    todo = list(body) if isinstance(body, list) else []
    while todo:
        stmt = todo.pop(0)
        if not (stmt.lineno <= call.lineno <= (stmt.end_lineno or stmt.lineno)):
            continue
        inner = [s for field in ("body", "orelse", "finalbody") for s in getattr(stmt, field, []) or []
                 if isinstance(s, ast.stmt)] + [s for h in getattr(stmt, "handlers", []) for s in h.body]
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return None
        holding = [s for s in inner if s.lineno <= call.lineno <= (s.end_lineno or s.lineno)]
        if not holding:
            return stmt
        todo = holding
    return None


def siblings_of(site, stmt: ast.stmt) -> list[ast.stmt] | None:
    """The statement list (a function's or block's body) that holds ``stmt``, in the call's scope."""
    root = site.scope.node
    todo = [getattr(root, "body", None)]
    while todo:
        body = todo.pop()
        if not isinstance(body, list):
            continue
        if any(s is stmt for s in body):
            return body
        for s in body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            todo += [getattr(s, f, None) for f in ("body", "orelse", "finalbody")]
            todo += [h.body for h in getattr(s, "handlers", [])]
    return None


def spans_a_string(stmt: ast.AST) -> bool:
    """Whether a string literal in the statement spans lines (re-indenting them would change it)."""
    return any(isinstance(n, (ast.Constant, ast.JoinedStr)) and getattr(n, "lineno", 0) != getattr(n, "end_lineno", 0)
               and (not isinstance(n, ast.Constant) or isinstance(n.value, (str, bytes))) for n in ast.walk(stmt))


def call_text(index: ModuleIndex, site, first: Sequence[str] = (), drop: Sequence[ast.AST] = (),
              extra: Sequence[str] = ()) -> str:
    """A call rebuilt from its parts as written: its callee, then ``first``, its arguments less
    the nodes ``drop`` (keywords by name), then ``extra`` (``barrier=bar``). Comments inside the
    parentheses are not kept."""
    call = site.node
    code = index.code_of
    parts = [*first, *(code(a, site.scope) for a in call.args if not any(a is d for d in drop))]
    parts += [f"{k.arg}={code(k.value, site.scope)}" for k in call.keywords if not any(k.value is d for d in drop)]
    return f"{code(call.func, site.scope)}({', '.join([*parts, *extra])})"


def statement_indent(site) -> str | None:
    """The indentation of a call that is a whole statement on its own line (its result
    dropped, nothing before it on the line): what later lines of statements replacing it get.
    None otherwise (``x = 1; store(...)``: a decorated def cannot follow on that line)."""
    if site.use != "expr":
        return None
    bp = site.scope.block
    indent = bp.line(site.node.lineno)[:bp.col(site.node.lineno, site.node.col_offset)]
    return None if indent.strip() else indent


# --- the fix policy: which fixes apply without being chosen one by one ------------------------------
# Said after the title of a quick fix that changes what runs (the CLI's word for it: --unsafe-fixes).
UNSAFE_TITLE_SUFFIX = " (unsafe: changes what runs)"


def applies_unchosen(fix: Fix, *, unsafe: bool) -> bool:
    """The one policy of ``check --fix``/``--diff`` and of the editor's fix-all and preferred
    quick fixes: a fix applies without the user choosing it when it is safe (the program keeps
    running in the mode it is launched in), and one that changes what runs (such as running
    compiled) only with ``unsafe`` (``--unsafe-fixes``, the ``unsafeFixes`` setting)."""
    return fix.kind == "quickfix" and (fix.safe or unsafe)


def offered_title(fix: Fix) -> str:
    """A quick fix's title as offered one by one: it says when the fix changes what runs."""
    return fix.title if fix.safe else fix.title + UNSAFE_TITLE_SUFFIX


def offered_preferred(fix: Fix, *, unsafe: bool) -> bool:
    """Whether an editor may apply the quick fix on its own (auto fix): only a preferred fix
    the policy applies unchosen."""
    return fix.preferred and applies_unchosen(fix, unsafe=unsafe)


def fix_candidates(finding: Finding, *, unsafe: bool, fixes: Sequence[Fix] | None = None) -> list[Fix]:
    """The fixes that may be applied for a finding without being chosen, in the order they are
    tried: its safe fixes, then (``unsafe``) the others, preferred ones first. ``fixes``: the
    finding's fixes to consider (by default all of them)."""
    considered = [fx for fx in (finding.fixes if fixes is None else fixes) if applies_unchosen(fx, unsafe=unsafe)]
    return [fx for fx in considered if fx.safe] + sorted((fx for fx in considered if not fx.safe),
                                                          key=lambda fx: not fx.preferred)


def _overlaps(a: Span, b: Span) -> bool:
    return not ((a.end_line, a.end_col) <= (b.line, b.col) or (b.end_line, b.end_col) <= (a.line, a.col))


def choose_fixes(findings: Sequence[Finding], path: str | None, *, unsafe: bool,
                 fixes_of: Callable[[Finding], Sequence[Fix]] | None = None) -> list[Fix]:
    """One fix per finding (the first candidate whose edits do not overlap those of a fix
    already chosen; an edit identical to a chosen one, such as the same import, is shared).
    ``fixes_of``: a finding's fixes to consider (the editor leaves out those that would not
    parse); by default all of them."""
    chosen: list[Fix] = []
    taken: list[TextEdit] = []
    here = os.path.abspath(path) if path else None
    for f in sorted(findings, key=Finding.sort_key):
        if f.path is not None and here is not None and os.path.abspath(f.path) != here:
            continue  # (its edits are positions in another file)
        for fx in fix_candidates(f, unsafe=unsafe, fixes=fixes_of(f) if fixes_of is not None else None):
            if not fx.edits:
                continue
            new = [e for e in fx.edits if e not in taken]
            if any(_overlaps(e.span, t.span) for e in new for t in taken):
                continue
            chosen.append(fx)
            taken.extend(new)
            break
    return chosen


# How fixes spell the Pallas modules (the import aliases the fixes add and JAX's docs use).
_FIX_ALIASES = {"pl": api.PL, "pltpu": api.PLTPU, "plgpu": api.PLGPU, "plt": api.PLTRITON}
_QUALIFIED = re.compile(r"\b(jax\.experimental\.pallas(?:\.\w+)?|" + "|".join(_FIX_ALIASES) + r")\.(\w+)")


def names_missing_api(fix: Fix, release: JaxRelease) -> bool:
    """Whether the fix's title or edits name a Pallas API the release does not export (an
    ``InterpretGPUParams`` before jax 0.11): such a fix cannot run there and is not offered."""
    text = "\n".join([fix.title, *(e.new_text for e in fix.edits)])
    for module, name in _QUALIFIED.findall(text):
        if release.lacks_api(f"{_FIX_ALIASES.get(module, module)}.{name}"):
            return True
    return False


def offered(fixes: Sequence[Fix], release: JaxRelease) -> tuple[Fix, ...]:
    """The fixes that name no API the release lacks."""
    return tuple(fx for fx in fixes if not names_missing_api(fx, release))
