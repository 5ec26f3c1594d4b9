"""PAL601: a kernel whose parameters do not match the Refs its launch passes it."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.launch_signature import KernelArity, RefCounts, kernel_arity, ref_counts
from ...analysis.rule_api import Hit, Report
from ...rules.base import PythonRule


class KernelArityMismatch(PythonRule):
    """The kernel takes a different number of Refs than its launch passes it.

    `pl.pallas_call`, `pl.kernel` and `plgpu.kernel` call the kernel with, in order: one Ref
    per flattened operand (the scalar-prefetch operands of a `PrefetchScalarGridSpec` are the
    first operands), one per output leaf of `out_shape` / `out_type`, then one per
    `scratch_shapes` / `scratch_types` entry. JAX traces the kernel as soon as the launch is
    traced, so a signature with another number of parameters raises Python's own `TypeError`
    (`takes 2 positional arguments but 3 were given`, `missing 1 required positional
    argument`) in every mode, interpret mode on a CPU included. Make the signature match:
    add the missing output or scratch Ref, the scalar-prefetch Ref first, or pass the
    missing operand. Counts are checked only where the code spells out every operand,
    output and scratch entry.
    """

    code = "PAL601"
    name = "kernel-arity-mismatch"
    record = "kernel-arity-mismatch"
    summary = "a kernel whose parameter count differs from the Refs its launch passes"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL, api.PL_KERNEL, api.PLGPU_KERNEL})
    label = "kernel"
    modes = frozenset(Mode)  # (raised while tracing: before any backend is involved)

    def applies(self, hit: Hit) -> bool:
        return True  # (tracing fails on any host, before the CPU host check of a compiled launch)

    def check(self, hit: Hit) -> Report | None:
        arity = kernel_arity(hit.launch)
        if arity is None:
            return None
        counts = ref_counts(hit.ev, hit.launch)
        if counts is None or arity.accepts(counts.total):
            return None
        kernel = hit.launch.kernel
        assert kernel is not None and kernel.node is not None
        name = kernel.name
        span = hit.index.span(kernel.node, kernel.parent)
        path = hit.index.path_of(kernel)
        related = [Related(hit.span_of(hit.launch.site.node, hit.launch.site.scope), "the launch that passes the refs")]
        if path is not None and path != hit.index.path:
            related = [Related(span, f"`{name}` is defined here", path)]
            span = hit.span
        return Report(_error(name, arity, counts.total), _headline(name, arity, counts, hit.launch.api.short),
                      span=span, key=("arity", id(kernel)), related=tuple(related), fixable=False)


def _takes(arity: KernelArity) -> str:
    if arity.high is None:
        return f"at least {arity.low}"
    return f"{arity.high}" if arity.low == arity.high else f"{arity.low} to {arity.high}"


def _headline(name: str, arity: KernelArity, counts: RefCounts, launch_label: str) -> str:
    return (f"kernel `{name}` takes {_takes(arity)} ref{'' if arity.high == 1 else 's'}; this `{launch_label}` "
            f"passes {counts.words()}")


def _error(name: str, arity: KernelArity, given: int) -> str:
    """Python's arity message as the kernel's call raises it."""
    if arity.high is not None and given > arity.high:
        n = arity.high
        takes = f"{n}" if arity.low == n else f"from {arity.low} to {n}"
        return (f"TypeError: {name}() takes {takes} positional argument{'' if n == 1 else 's'} but {given} "
                f"{'was' if given == 1 else 'were'} given")
    missing = list(arity.params[given:arity.low])
    quoted = [f"'{p}'" for p in missing]
    listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
    return (f"TypeError: {name}() missing {len(missing)} required positional argument"
            f"{'' if len(missing) == 1 else 's'}: {listed}")


__all__ = ["KernelArityMismatch"]
