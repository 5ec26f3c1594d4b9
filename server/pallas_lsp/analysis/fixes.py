"""Building blocks for quick fixes: small, exact text edits on calls, defs and imports.

Every fix a rule offers is checked against real JAX by the oracle suite
(tests/oracle): applied to the rule's INVALID examples, the program must run clean.
"""
from __future__ import annotations

import ast

from . import api
from .findings import Finding, Fix, TextEdit
from .module import ModuleIndex, Span
from .scopes import Scope
from .suppression import find_suppression, with_code


def _args_in_order(call: ast.Call) -> list[ast.AST]:
    """Positional arguments and keywords of a call, in source order."""
    items: list[ast.AST] = [*call.args, *call.keywords]
    return sorted(items, key=lambda a: (a.lineno, a.col_offset))


def add_kwarg(index: ModuleIndex, call: ast.Call, scope: Scope, name: str, value: str) -> TextEdit:
    """Add ``name=value`` to a call, or replace the value when the keyword is there."""
    for k in call.keywords:
        if k.arg == name:
            return TextEdit(index.span(k.value, scope), value)
    args = _args_in_order(call)
    if args:
        last = index.span(args[-1], scope)
        return TextEdit(Span(last.end_line, last.end_col, last.end_line, last.end_col), f", {name}={value}")
    end = index.span(call, scope)
    return TextEdit(Span(end.end_line, end.end_col - 1, end.end_line, end.end_col - 1), f"{name}={value}")


def remove_kwarg(index: ModuleIndex, call: ast.Call, scope: Scope, name: str) -> TextEdit | None:
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


def ensure_import(index: ModuleIndex, module: str) -> tuple[str, TextEdit | None]:
    """The local name of ``module`` and, when it is not imported, an edit adding
    ``import module`` before the first top-level import."""
    name = local_name_for(index, module)
    if name is not None:
        return name, None
    line = 1
    for block, bp in index.parses:
        first = block.text.lstrip()
        if block.kind == "module" and (first.startswith("import ") or first.startswith("from ")) \
                and not first.startswith("from __future__"):
            line = block.start_line
            break
    else:
        line = 1
    return module, TextEdit(Span(line, 0, line, 0), f"import {module}\n")


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


def _statement_lines(index: ModuleIndex, hit) -> Span | None:
    """The whole lines of the simple statement ``name = pl.get_global(...)`` (alone on its lines)."""
    scope = hit.call.scope
    for b in scope.bindings.get(hit.call.targets[0], []):
        if b.node is hit.call.node and b.stmt is not None:
            stmt = index.span(b.stmt, scope)
            line_text = index.line_text(stmt.line)
            if line_text[:stmt.col].strip() or line_text[stmt.end_col:].strip().split("#")[0].strip():
                return None  # shares its line with other code
            return Span(stmt.line, 0, stmt.end_line + 1, 0)
    return None


def move_to_scratch_fix(hit, title: str, what: str | None = None, *, safe: bool = True) -> Fix | None:
    """Turn ``name = pl.get_global(WHAT)`` in a kernel into kernel scratch: ``WHAT`` goes into the
    launch's scratch list and ``name`` becomes a new last parameter of the kernel. Only where
    that is unambiguous: the call is in the kernel itself, the kernel has this single launch and
    plain positional parameters, and the launch's scratch list (if any) is a literal list."""
    ev, launch = hit.ev, hit.launch
    index = ev.index
    name = _single_target_assignment(hit)
    if name is None or len(launch.kernels) != 1 or hit.reached.scope is not launch.kernel \
            or hit.call.guards or hit.call.withs:
        return None
    kernel = launch.kernel
    fdef = kernel.function_def
    if fdef is None or launch.api.name == api.CORE_MAP or "grid_spec" in launch.options or len(fdef.body) < 2:
        return None
    from .evaluate import FuncVal

    if not isinstance(launch.kernel_value, FuncVal):
        return None  # partials and wrappers shift parameters: leave to the author
    p = fdef.args
    params = [*p.posonlyargs, *p.args]
    if p.vararg is not None or p.kwarg is not None or p.kwonlyargs or p.defaults or not params:
        return None
    if launches_of_kernel(hit.view.all_launches, kernel) > 1:
        return None
    what_node = ev.posarg(hit.call, 0)
    if what_node is None:
        return None
    what = what if what is not None else index.code_of(what_node, hit.call.scope)  # (or a replacement)
    stmt = _statement_lines(index, hit)
    if stmt is None:
        return None
    key = launch.api.scratch_keyword
    edits = [TextEdit(stmt, "")]
    last = index.span(params[-1], kernel)
    edits.append(TextEdit(Span(last.end_line, last.end_col, last.end_line, last.end_col), f", {name}"))
    existing = launch.options.get(key)
    if existing is not None:
        node, scope, _ = existing
        if not isinstance(node, (ast.List, ast.Tuple)):
            return None
        if node.elts:
            lastel = index.span(node.elts[-1], scope)
            edits.append(TextEdit(Span(lastel.end_line, lastel.end_col, lastel.end_line, lastel.end_col),
                                  f", {what}"))
        else:
            sp = index.span(node, scope)
            edits.append(TextEdit(sp, f"[{what}]"))
    else:
        edits.append(add_kwarg(index, launch.site.node, launch.site.scope, key, f"[{what}]"))
    return Fix(title.format(key=key, what=what), tuple(edits), preferred=True, safe=safe)
