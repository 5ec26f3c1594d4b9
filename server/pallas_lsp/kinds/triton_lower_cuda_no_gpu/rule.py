"""PAL403: a Triton ``pl.pallas_call`` lowered for CUDA on a host without a GPU."""
from __future__ import annotations

import ast

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Fix, Related, TextEdit
from ...analysis.fixes import spans_a_string, statement_of, value_in_module
from ...analysis.module import Span
from ...analysis.rule_api import Hit, Report
from ...rules.base import PythonRule

USE_ABSTRACT_MESH = "jax.sharding.use_abstract_mesh"
# The GPU the fix names (what KINDS.md's clean run named): any CUDA device kind Triton knows works.
ABSTRACT_GPU = ('{jax}.sharding.use_abstract_mesh({jax}.sharding.AbstractMesh((1,), ("x",), abstract_device='
                '{jax}.sharding.AbstractDevice(device_kind="NVIDIA H100 80GB HBM3", num_cores=None, platform="cuda")))')
FIX_TITLE = "Lower under an abstract CUDA device (jax.sharding.use_abstract_mesh naming an H100): no GPU needed"
ERROR = ("RuntimeError: No supported GPU devices found, please specify an abstract GPU device using "
         "AbstractDevice. See jax.sharding.use_abstract_mesh method for example.")


class TritonLoweredForCudaWithoutGpu(PythonRule):
    """A Triton `pl.pallas_call` lowered or exported for CUDA needs a GPU to ask for its
    compute capability.

    Triton's pallas_call lowering reads the target GPU's compute capability. On a host without
    a GPU and without an abstract device it raises (`pallas_call_registration.py`), so
    `.lower(lowering_platforms=("cuda",))` or `jax.export(..., platforms=["cuda"])` of such a
    kernel fails on a CPU-only machine (CI, a laptop) and works on a GPU host: the finding is a
    warning. Lower inside `jax.sharding.use_abstract_mesh(AbstractMesh(..., abstract_device=
    AbstractDevice(platform="cuda", ...)))` to name the GPU. Mosaic GPU kernels lower without one.
    """

    code = "PAL403"
    name = "triton-lower-cuda-no-gpu"
    record = "triton-lower-cuda-no-gpu"
    summary = "a Triton pl.pallas_call lowered or exported for CUDA (fails on a host without a GPU)"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    label = "pl.pallas_call"
    modes = frozenset({Mode.TRITON})

    def check(self, hit: Hit) -> Report | None:
        ctx = hit.context
        if ctx.lowered_for != "cuda" or not ctx.evidence:
            return None
        lowering = ctx.evidence[0]
        if lowering.path is not None:
            return None  # (a lowering in another module: not looked at)
        site = _lowering_call(hit, lowering.span)
        if site is None or _under_abstract_mesh(hit, site):
            return None
        return Report(ERROR, "`pl.pallas_call` (Triton) cannot be lowered for CUDA on a host without a GPU",
                      span=hit.span_of(site.node, site.scope), key=id(site.node), warning=True,
                      related=(Related(hit.span_of(hit.launch.site.node, hit.launch.site.scope),
                                       "the Triton launch it lowers"),))

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        lowering = hit.context.evidence[0] if hit.context.evidence else None
        site = _lowering_call(hit, lowering.span) if lowering is not None else None
        fix = _wrapped_in_abstract_mesh(hit, site) if site is not None else None
        return [fix] if fix is not None else []


def _lowering_call(hit: Hit, platforms):
    """The ``.lower(...)`` / ``export(...)`` call whose platforms argument is at ``platforms``."""
    for cs in hit.index.calls_to(("lower", "export")):
        if hit.index.span(cs.node, cs.scope).contains(platforms.line, platforms.col):
            return cs
    return None


def _wrapped_in_abstract_mesh(hit: Hit, site) -> Fix | None:
    """The simple statement holding the lowering call, put inside ``with
    jax.sharding.use_abstract_mesh(...)`` (its lines indented one level more). Not offered for a
    statement whose lines a string spans (indenting would change the string) or that shares its
    line with another statement."""
    index = hit.index
    if index.path_of(site.scope) != index.path or site.callee_last != "lower":
        # (Exported, it then fails on Triton's custom calls, which jax.export cannot serialize.)
        return None
    stmt = statement_of(site)
    if stmt is None or isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For,
                                         ast.While, ast.With, ast.Try, ast.AsyncFor, ast.AsyncWith)):
        return None
    if spans_a_string(stmt):
        return None
    span = index.span(stmt, site.scope)
    lines = index.lines()
    first = lines[span.line - 1]
    indent = first[:span.col]
    if indent.strip() or lines[span.end_line - 1][span.end_col:].strip(" \t;").split("#")[0].strip():
        return None
    unit = "    " if "\t" not in indent else "\t"
    header, imports = value_in_module(index, ABSTRACT_GPU)
    # (One edit at the first line's start: two inserts at one place would have no order.)
    edits = [TextEdit(Span(span.line, 0, span.line, 0), f"{indent}with {header}:\n{unit}")]
    edits += [TextEdit(Span(line, 0, line, 0), unit) for line in range(span.line + 1, span.end_line + 1)
              if lines[line - 1].strip()]
    return Fix(FIX_TITLE, tuple(edits) + imports, preferred=True, safe=False)


def _under_abstract_mesh(hit: Hit, site) -> bool:
    """The call runs inside ``with jax.sharding.use_abstract_mesh(...)`` (in its function)."""
    ev = hit.ev
    for w in site.withs:
        for item in w.node.items:
            expr = item.context_expr
            func = getattr(expr, "func", None)
            if func is not None and ev.ext_name(ev.value(func, w.scope)) == USE_ABSTRACT_MESH:
                return True
    return False


__all__ = ["TritonLoweredForCudaWithoutGpu"]
