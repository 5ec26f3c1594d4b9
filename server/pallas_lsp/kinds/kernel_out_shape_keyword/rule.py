"""PAL611: pl.kernel / plgpu.kernel given out_shape= (they take out_type=)."""
from __future__ import annotations

import ast

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Fix, Related, TextEdit
from ...analysis.module import Span
from ...analysis.rule_api import Hit, Report
from ...analysis.scopes import Scope
from ...lowering import PINNED_RELEASE
from ...rules.base import PythonRule, record_wordings

# What each API raises for out_shape=. Which releases raise it is the record's wordings (each run
# under that release): plgpu.kernel took out_shape= as a deprecated alias of out_type= until
# 0.10.2, pl.kernel named its parameter out_shape until 0.9.2.
MESSAGE_OF = {api.PL_KERNEL: "kernel() got an unexpected keyword argument 'out_shape'",
              api.PLGPU_KERNEL: "Mesh.__init__() got an unexpected keyword argument 'out_shape'"}


class KernelOutShapeKeyword(PythonRule):
    """`pl.kernel` / `plgpu.kernel` is given `out_shape=`; they take `out_type=`.

    `pl.kernel(body, out_type=..., mesh=...)` and `plgpu.kernel(body, out_type=..., ...)` name
    their outputs `out_type`. From jax 0.10.2 `out_shape=` is not one of `pl.kernel`'s
    parameters (`TypeError: kernel() got an unexpected keyword argument 'out_shape'`); from
    0.11.2 `plgpu.kernel` passes unknown keywords to its `plgpu.Mesh` (`TypeError:
    Mesh.__init__() got an unexpected keyword argument 'out_shape'`,
    jax/_src/pallas/mosaic_gpu/core.py), where 0.10.2's still took `out_shape=` as a deprecated
    alias. Either is raised when the launch is built, in every mode. Quiet under a release that
    takes the keyword. Rename the keyword to `out_type=`.
    """

    code = "PAL611"
    name = "kernel-out-shape-keyword"
    record = "kernel-out-shape-keyword"
    summary = "pl.kernel / plgpu.kernel given out_shape= instead of out_type="
    construct = "launch"
    apis = frozenset({api.PL_KERNEL, api.PLGPU_KERNEL})
    label = "out_shape="
    modes = frozenset(Mode)  # (raised when the launch is built: before any backend is involved)

    def applies(self, hit: Hit) -> bool:
        return True

    def check(self, hit: Hit) -> Report | None:
        keyword = _out_shape_keyword(hit)
        if keyword is None:
            return None
        message = MESSAGE_OF[hit.launch.api.name]
        release = hit.release.version or PINNED_RELEASE
        if release not in record_wordings(self.record).get(message, ()):
            return None  # (this release's API still takes out_shape=)
        node, scope = keyword
        short = hit.launch.api.short
        related = (Related(hit.span_of(hit.launch.site.node, hit.launch.site.scope), f"the `{short}` launch"),)
        return Report(f"TypeError: {message}", f"`{short}` takes `out_type=`, not `out_shape=` (jax {release})",
                      span=hit.span_of(node, scope), key=("out_shape", id(node)), related=related)

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        keyword = _out_shape_keyword(hit)
        if keyword is None or hit.index.path_of(keyword[1]) not in (None, hit.index.path):
            return []
        span = hit.span_of(*keyword)
        name = Span(span.line, span.col, span.line, span.col + len("out_shape"))
        # (safe: the same outputs, under the name the release reads them by)
        return [Fix("Rename `out_shape=` to `out_type=`", (TextEdit(name, "out_type"),), preferred=True,
                    safe=True)]


def _out_shape_keyword(hit: Hit) -> tuple[ast.keyword, Scope] | None:
    """The ``out_shape=`` keyword written in the launch's own call (or the partial it is built by)."""
    site = hit.launch.option_sites.get("out_shape")
    if site is None or "out_shape" not in hit.launch.options:
        return None
    node = next((k for k in site.node.keywords if k.arg == "out_shape"), None)
    return (node, site.scope) if node is not None else None


__all__ = ["KernelOutShapeKeyword"]
