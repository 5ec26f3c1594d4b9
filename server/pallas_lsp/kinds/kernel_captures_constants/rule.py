"""PAL606: a ``pl.pallas_call`` kernel that reads an array from outside its refs."""
from __future__ import annotations

from ...analysis import api
from ...analysis.captures import captured_arrays
from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.rule_api import Hit, Report
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
        launch = hit.launch
        kernels = [k for k in launch.kernels if k.kind in ("function", "lambda")]
        if not kernels:
            return None
        # What runs while the kernel is traced: the kernel, what it defines, the helpers it reaches
        # (their own locals are traced values of the kernel, not constants).
        traced = kernels + [r.scope for r in hit.view.reached if r.scope.kind in ("function", "lambda")]
        inside = {id(s) for t in traced for s in t.walk()}
        functions = list({id(s): s for t in traced for s in t.walk() if s.kind in ("function", "lambda")}.values())
        captures = captured_arrays(hit.ev, functions, inside)
        if not captures:
            return None
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
        return Report(error, headline, span=span, key=id(first.load), related=tuple(related), fixable=False)
