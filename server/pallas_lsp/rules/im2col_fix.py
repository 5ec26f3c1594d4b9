"""PAL102's fix: the im2col rows built outside the kernel, and copied from plainly.

The GPU interpreter cannot copy from a ``plgpu.im2col_ref`` view ("Interpret mode does not
support im2col copies."). The view's rows are a function of the input alone (jax's
``im2col_ref`` docstring: for an input ``(N, *spatial_in, C)`` the view is ``(N *
prod(spatial_out), *window_shape, C)`` and ``view[r, *offsets, c] == padded[n, *(s + o), c]``
with ``(n, *s) = unravel(r, (N, *spatial_out))``), so they can be made with jnp before the
launch and passed in as one more input; the copy then reads ``rows.at[...]``, a plain GMEM
slice, with the same indices. What ran clean under jax 0.12 (KINDS.md) is this, for one tap.
The fix adds a module-level helper ``_im2col_rows`` that builds them, a kernel parameter for
them and the argument at the kernel's one application. Rows past the end of the view, which a
TMA copy reads as zeros, are not padded here: the fix is not safe.
"""
from __future__ import annotations

import ast

from ..analysis import api
from ..analysis.evaluate import CallVal
from ..analysis.findings import Fix, TextEdit
from ..analysis.fixes import cst_edits, value_in_module  # (cst_edits: loaded on first use)
from ..analysis.launches import applied_at, kernel_operand_params
from ..analysis.module import Span
from ..analysis.rule_api import Hit
from .scratch_fixes import fresh_kernel_name

IM2COL_REF = "jax.experimental.pallas.mosaic_gpu.im2col_ref"
HELPER = "_im2col_rows"
_HELPER_CODE = '''def {name}(x, window_shape, padding=None):
    """The rows of plgpu.im2col_ref(x, window_shape=..., padding=...) as an array: row r is
    window r of the zero-padded input, shape (N * prod(spatial_out), *window_shape, C)."""
    padding = tuple(padding) if padding is not None else ((0, 0),) * len(window_shape)
    padded = {jax.numpy}.pad(x, ((0, 0), *padding, (0, 0)))
    out = [padded.shape[1 + i] - k + 1 for i, k in enumerate(window_shape)]
    offsets = [()]
    for k in window_shape:
        offsets = [o + (d,) for o in offsets for d in range(k)]
    taps = [{jax}.lax.slice(padded, (0, *o, 0), (padded.shape[0], *(a + n for a, n in zip(o, out)), padded.shape[-1]))
            for o in offsets]
    rows = x.shape[0]
    for n in out:
        rows *= n
    return {jax.numpy}.stack(taps, axis=1 + len(window_shape)).reshape(rows, *window_shape, x.shape[-1])


'''


def im2col_rows_outside(hit: Hit, title: str, safe: bool) -> Fix | None:
    """None unless: the copy is in a ``plgpu.kernel``/``pl.kernel`` body of this module; its
    source is ``view.at[...]`` (through at most two names) with ``view = plgpu.im2col_ref(p,
    window_shape=..., padding=...)`` used nowhere else, ``p`` an input parameter and the
    window and padding literals; and the kernel is applied once here, to positional
    arguments of which ``p``'s is a name or attribute (it is read twice)."""
    ev, index, launch = hit.ev, hit.index, hit.launch
    kernel = launch.kernel
    if kernel is None or hit.reached is None or hit.reached.scope is not kernel or kernel.node is None \
            or launch.api.name not in (api.PLGPU_KERNEL, "jax.experimental.pallas.kernel") \
            or index.path_of(kernel) != index.path:
        return None
    scope = hit.site.scope
    src = ev.posarg(hit.site, 0)
    for _ in range(3):  # (``src = patches.at[...]`` before the copy)
        if not isinstance(src, ast.Name):
            break
        b = ev.lookup(src.id, scope)
        if b is None or b.kind != "assign" or b.node is None or b.scope is not scope:
            return None
        src = b.node
    if not (isinstance(src, ast.Subscript) and isinstance(src.value, ast.Attribute) and src.value.attr == "at"
            and isinstance(src.value.value, ast.Name)):
        return None
    view = src.value.value
    vb = ev.lookup(view.id, scope)
    if vb is None or vb.kind != "assign" or not isinstance(vb.node, ast.Call) or vb.scope is not scope \
            or not isinstance(vb.stmt, ast.Assign) or len(vb.stmt.targets) != 1:
        return None
    made = ev.value(vb.node, scope)
    if not isinstance(made, CallVal) or api.canonical(ev.called_api(made) or "") != IM2COL_REF:
        return None
    im2col = vb.node
    if len(im2col.args) != 1 or not isinstance(im2col.args[0], ast.Name) \
            or any(k.arg not in ("window_shape", "padding") for k in im2col.keywords):
        return None
    options = {k.arg: index.code_of(k.value, scope) for k in im2col.keywords}
    try:
        for code in options.values():
            ast.literal_eval(code)  # (written again where the kernel is applied)
    except (ValueError, SyntaxError):
        return None
    if "window_shape" not in options:
        return None
    loads = [n for n in ast.walk(kernel.node) if isinstance(n, ast.Name) and n.id == view.id]
    if len(loads) != 2:  # (its binding and this one read)
        return None
    # The input parameter the view is made from, and the kernel's application.
    params = kernel_operand_params(launch)
    if params is None or [a.arg for a in kernel.node.args.args[:len(params)]] != params:
        return None  # (a partial binds some by keyword: positions in the def are not the launch's)
    sites = applied_at(ev, launch)
    if len(sites) != 1 or index.path_of(sites[0].scope) != index.path:
        return None
    call = sites[0].node
    n = len(call.args)
    if not n or call.keywords or any(isinstance(a, ast.Starred) for a in call.args) or n > len(params):
        return None
    name = im2col.args[0].id
    if name not in params[:n]:
        return None
    operand = call.args[params.index(name)]
    if not isinstance(operand, (ast.Name, ast.Attribute)):
        return None
    new = fresh_kernel_name(hit, f"{name}_windows")
    shape_and_padding = ", ".join([options["window_shape"]] + ([options["padding"]] if "padding" in options else []))
    value = f"{HELPER}({index.code_of(operand, sites[0].scope)}, {shape_and_padding})"
    owner = index.index_of(kernel)
    try:  # (libcst keeps the def's and the call's layout; the view's line goes with its comments kept)
        edits = [TextEdit(index.span(view, scope), new),
                 cst_edits.delete_statement(owner.text, owner.blocks, index.span(vb.stmt, scope)),
                 cst_edits.insert_parameter(owner.text, owner.blocks, index.span(kernel.node, kernel), new, n),
                 cst_edits.append_argument(owner.text, owner.blocks, index.span(call, sites[0].scope), value)]
    except cst_edits.EditFailed:
        return None
    imports: tuple[TextEdit, ...] = ()
    if HELPER not in index.scope.bindings:
        code, imports = value_in_module(index, _HELPER_CODE.replace("{name}", HELPER))
        first = _top_level_line(index, kernel)
        if first is None:
            return None
        edits.append(TextEdit(Span(first, 0, first, 0), code))
    if not cst_edits.edits_parse(owner.text, owner.blocks, [*edits, *imports]):
        return None
    return Fix(title.replace("{name}", new), tuple(edits) + imports, safe=safe)


def _top_level_line(index, scope) -> int | None:
    """The first line (decorators included) of the module-level statement holding ``scope``."""
    while scope.parent is not None and scope.parent.kind != "module":
        scope = scope.parent
    node = scope.node
    if node is None or scope.parent is None:
        return None
    return min(index.span(n, scope.parent).line for n in [node] + list(getattr(node, "decorator_list", [])))
