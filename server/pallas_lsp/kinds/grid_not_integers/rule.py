"""PAL608: a pallas_call grid with an entry that is surely a float (``n / BLOCK``, ``np.ceil``)."""
from __future__ import annotations

import ast

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.launch_signature import non_integer_grid
from ...analysis.rule_api import Hit, Report
from ...rules.base import PythonRule


class GridNotIntegers(PythonRule):
    """A `pallas_call` grid holds a float: true division, a NumPy float, or a bare float grid.

    `GridSpec.__init__` (jax/_src/pallas/core.py) accepts grid entries that are Python ints or
    `jax.Array`s only: `n / BLOCK` is a Python float even when it divides evenly, and
    `np.ceil(...)` is a NumPy float scalar, so JAX raises `ValueError: Grid must be a tuple of
    integers or jax.Array, got (8.0,)`. A bare float grid fails earlier (`TypeError: 'float'
    object is not subscriptable`). Raised as the launch is built, in every mode. Compute the
    grid with `pl.cdiv(n, BLOCK)` or `n // BLOCK`.
    """

    code = "PAL608"
    name = "grid-not-integers"
    record = "grid-not-integers"
    summary = "pallas_call grid entry that is a float (true division, np.ceil)"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    label = "grid="
    modes = frozenset(Mode)  # (raised when the launch is built: before any backend is involved)

    def applies(self, hit: Hit) -> bool:
        return True

    def check(self, hit: Hit) -> Report | None:
        grid = non_integer_grid(hit.ev, hit.launch)
        if grid is None:
            return None
        related = []
        if grid.entry is not grid.node:
            related.append(Related(hit.span_of(grid.entry, grid.scope), "this grid entry is a float"))
        related.append(Related(hit.span_of(hit.launch.site.node, hit.launch.site.scope), "the `pallas_call`"))
        what = ("the grid is a float, not a tuple of integers" if grid.entry is grid.node
                else f"grid entry `{_text(grid.entry)}` is a float; a grid holds integers or jax.Arrays")
        return Report(grid.error, what, span=hit.span_of(grid.node, grid.scope), key=("grid-float",),
                      related=tuple(related), fixable=False)


def _text(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."


__all__ = ["GridNotIntegers"]
