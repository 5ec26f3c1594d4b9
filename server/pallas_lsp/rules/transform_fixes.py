"""Fixes for a kernel a transformation cannot go through. PAL507's: ``jax.grad`` / ``jax.jvp``
through ``plgpu.kernel`` or ``pl.kernel`` fails because their ``mpmd_map`` primitive has no
differentiation rule; a kernel whose inputs carry no tangent is not differentiated, so
``jax.lax.stop_gradient`` on each input of the kernel's call runs clean under jax 0.12
(KINDS.md). It changes the gradient (none flows through the kernel), so it is never safe."""
from __future__ import annotations

import ast

from ..analysis.findings import Fix, TextEdit
from ..analysis.fixes import value_in_module
from ..analysis.launches import applied_at
from ..analysis.rule_api import Hit
from ..analysis.scopes import CallSite
from ..analysis.transforms import is_built_launch, through_wrappers

_STOP = "{jax}.lax.stop_gradient"


def stop_gradient_at_inputs(hit: Hit, title: str, safe: bool) -> Fix | None:
    """Each argument of the built kernel's one application in this module wrapped in
    ``jax.lax.stop_gradient(...)``. None when it is applied more than once (which one the
    transformation reaches is not said), in another module, with ``*args``/``**kwargs``, or to
    arguments already stopped, and when the transformation takes the built kernel itself."""
    index, ev = hit.index, hit.ev
    t = hit.transform
    if t is not None and isinstance(t.site, CallSite) and t.site.positional:
        # ``jax.jvp(kernel, ...)``: the transformation takes the built kernel itself.
        v = ev.value(t.site.positional[0], t.site.scope, ev.other(t.site.scope).order_of(t.site))
        if is_built_launch(through_wrappers(ev, v), hit.launch) or _bound_to_launch(hit, t.site.positional[0]):
            return None
    sites = applied_at(ev, hit.launch)
    if len(sites) != 1 or index.path_of(sites[0].scope) != index.path:
        return None
    call = sites[0].node
    args = list(call.args) + [k.value for k in call.keywords]
    if not args or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    stop, imports = value_in_module(index, _STOP)
    edits: list[TextEdit] = []
    for a in args:
        code = index.code_of(a, sites[0].scope)
        if not code or "\n" in code or code.startswith(stop + "("):
            return None
        edits.append(TextEdit(index.span(a, sites[0].scope), f"{stop}({code})"))
    return Fix(title, tuple(edits) + imports, safe=safe)


def _bound_to_launch(hit: Hit, node: ast.expr) -> bool:
    """``node`` is a name the built kernel is bound to (``double`` in ``jax.jvp(double, ...)``)."""
    return isinstance(node, ast.Name) and node.id in hit.launch.bound_names
