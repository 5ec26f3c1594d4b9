"""PAL606: a ``pl.pallas_call`` kernel that reads an array from outside its refs."""
from __future__ import annotations

import ast
import dataclasses

from ...analysis import api
from ...analysis.captures import Capture, captured_arrays
from ...analysis.contexts import Mode
from ...analysis.evaluate import FuncVal
from ...analysis.findings import Fix, Related, TextEdit
from ...analysis.fixes import cst_edits, launches_of_kernel  # (cst_edits: loaded on first use)
from ...analysis.rule_api import Hit, Report
from ...analysis.scopes import own_nodes
from ...rules.base import PythonRule


class KernelCapturesConstants(PythonRule):
    """A `pl.pallas_call` kernel reads an array that is not one of its refs.

    `pallas_call` traces the kernel to a jaxpr (`_trace_kernel_to_jaxpr`,
    `jax/_src/pallas/pallas_call.py`) and refuses one with constants: an array the body reads
    from outside its parameters (a module-level `jnp.linspace(...)`, a NumPy `np.arange(...)`, a
    `jnp` array built in the wrapper, even a 0-d `jnp.float32(2.0)`) becomes a constant, and JAX
    raises "captures constants [...]. You should pass them as inputs." in every mode. Python ints
    and floats, NumPy scalars and 0-d NumPy arrays are literals and fine; so are `.shape` and
    `.dtype` of an array. Pass the array as an operand (it gets its own ref and BlockSpec).
    """

    code = "PAL606"
    name = "kernel-captures-constants"
    record = "kernel-captures-constants"
    summary = "a pl.pallas_call kernel reads an array from outside its refs (a jnp or NumPy array)"
    label = "pl.pallas_call"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    launch_apis = frozenset({api.PALLAS_CALL})
    modes = frozenset(Mode)  # (raised while the kernel is traced, before any backend)

    def applies(self, hit: Hit) -> bool:
        return hit.launch.api.name == api.PALLAS_CALL  # (tracing fails on any host)

    def check(self, hit: Hit) -> Report | None:
        captures = self._captures(hit)
        if not captures:
            return None
        report = self._report(hit, captures)
        if report is None:
            return None
        return dataclasses.replace(report, fixable=_pass_as_input(hit, captures) is not None)

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        captures = self._captures(hit)
        got = _pass_as_input(hit, captures) if captures else None
        if got is None:
            return []
        name, edits = got
        # (safe: the kernel reads the same values through its new ref, in the same mode)
        return [Fix(f"Pass `{name}` to the launch as an input (a new kernel parameter `{name}_ref`)",
                    edits, preferred=True, safe=True)]

    @staticmethod
    def _captures(hit: Hit) -> list[Capture]:
        launch = hit.launch
        kernels = [k for k in launch.kernels if k.kind in ("function", "lambda")]
        if not kernels:
            return []
        # What runs while the kernel is traced: the kernel, what it defines, the helpers it reaches
        # (their own locals are traced values of the kernel, not constants).
        traced = kernels + [r.scope for r in hit.view.reached if r.scope.kind in ("function", "lambda")]
        inside = {id(s) for t in traced for s in t.walk()}
        functions = list({id(s): s for t in traced for s in t.walk() if s.kind in ("function", "lambda")}.values())
        return captured_arrays(hit.ev, functions, inside)

    @staticmethod
    def _report(hit: Hit, captures: list[Capture]) -> Report | None:
        launch = hit.launch
        first = captures[0]
        ev = hit.ev
        index = ev.other(first.scope).index
        span = index.span(first.load, first.scope)
        path = index.path
        if path != hit.index.path:
            return None  # (a helper in another module: reported where its kernel is, not here)
        where = "at module level" if first.binding.scope.kind == "module" else f"in `{first.binding.scope.name}`"
        bound = hit.span_of(first.binding.stmt or first.binding.node, first.binding.scope)
        related = [Related(bound, f"`{first.load.id}` is an array ({first.built_by}(...)) bound {where}")]
        for other in captures[1:]:
            if other.load.id != first.load.id:
                related.append(Related(ev.other(other.scope).index.span(other.load, other.scope),
                                       f"`{other.load.id}` is captured too"))
        kernel = launch.kernel_name
        headline = (f"The kernel reads `{first.load.id}`, an array ({first.built_by}) from outside its refs: "
                    f"pallas_call refuses a kernel that captures constants; pass it as an input")
        error = (f"ValueError: The kernel function in the pallas_call {kernel} at <file>:<line> captures constants "
                 f"[...]. You should pass them as inputs.")
        return Report(error, headline, span=span, key=id(first.load), related=tuple(related))


def _pass_as_input(hit: Hit, captures: list[Capture]) -> tuple[str, tuple[TextEdit, ...]] | None:
    """The captured array passed as the launch's last input and read through a new kernel
    parameter ``<name>_ref`` before the outputs' (``kernel(x_ref, mask_ref, o_ref)``,
    ``pallas_call(...)(x, mask)``), as the clean twin of this kind ran. Only where that is the
    whole change: one array name, read in the kernel's own body (a helper's read would need the
    ref handed on); a plain def launched once and applied at once to positional inputs; no
    ``in_specs``/``grid_spec`` to extend (the new input gets the default whole-array block); the
    name bound to the same array where the launch is applied; all in one file. In interpret
    mode only: a compiled backend has its own rules for the new block (a Triton block must be a
    power of 2; a TPU VMEM block its tiling), not verified here."""
    launch, index, ev = hit.launch, hit.index, hit.ev
    if not hit.context.mode.is_interpret:
        return None
    first = captures[0]
    name = first.load.id
    kernel = launch.kernel if len(launch.kernels) == 1 else None
    fdef = kernel.function_def if kernel is not None else None
    if kernel is None or fdef is None or "in_specs" in launch.options or "grid_spec" in launch.options \
            or not isinstance(launch.kernel_value, FuncVal):
        return None  # (a functools.partial's bound arguments would shift the new parameter)
    if any(c.load.id != name or c.binding.node is not first.binding.node or c.scope is not kernel for c in captures):
        return None
    p = fdef.args
    if p.posonlyargs or p.vararg or p.kwonlyargs or p.kwarg or p.defaults:
        return None
    new_param = f"{name}_ref"
    if any(a.arg in (name, new_param) for a in p.args) \
            or any(isinstance(n, ast.Name) and n.id == new_param for n in ast.walk(fdef)):
        return None  # (the new parameter's name is taken)
    if launches_of_kernel(hit.view.all_launches, kernel) != 1:
        return None  # (another launch of the kernel would miss the new input)
    applied = next((cs for cs in launch.site.scope.calls if cs.node.func is launch.site.node), None)
    if applied is None or not applied.node.args or applied.node.keywords \
            or any(isinstance(a, ast.Starred) for a in applied.node.args):
        return None
    inputs = len(applied.node.args)
    if len(p.args) <= inputs:
        return None
    at_launch = ev.lookup(name, applied.scope, ev.order_of(applied))
    owner = index.index_of(kernel)
    if at_launch is None or at_launch.node is not first.binding.node \
            or index.index_of(applied.scope) is not owner or owner.path != index.path:
        return None  # (the name holds something else where the launch is applied)
    reads = [n for n in own_nodes(fdef) if isinstance(n, ast.Name) and n.id == name]
    captured = {id(c.load) for c in captures}
    # (reads left out of the captures are of static facts, ``NAME.shape``: they stay as written)
    try:
        edits = (cst_edits.insert_parameter(owner.text, owner.blocks, index.span(fdef, kernel), new_param, inputs),
                 cst_edits.append_argument(owner.text, owner.blocks, index.span(applied.node, applied.scope), name),
                 *(TextEdit(index.span(n, kernel), f"{new_param}[...]") for n in reads if id(n) in captured))
    except cst_edits.EditFailed:
        return None
    if not cst_edits.edits_parse(owner.text, owner.blocks, edits):
        return None
    return name, edits
