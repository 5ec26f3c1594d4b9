"""PAL002: ``pl.get_global`` of anything but a GMEM semaphore in a compiled Mosaic GPU kernel."""
from __future__ import annotations

from ..analysis import api
from ..analysis.contexts import Mode
from ..analysis.evaluate import CallVal, Ext
from ..analysis.fixes import move_to_scratch_fix
from .base import ApiInContextRule, Example

_HEADER = """import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
"""


def what_is_requested(hit) -> tuple[str, str] | None:
    """(public name, description) of a get_global argument that is not a GMEM semaphore,
    or None when it is one or cannot be told."""
    ev = hit.ev
    arg = ev.posarg(hit.call, 0)
    if arg is None:
        arg = ev.kwarg(hit.call, "what")
    if arg is None:
        return None
    v = ev.value(arg, hit.call.scope, ev.order_of(hit.call))
    name = ev.ext_name(v) if isinstance(v, Ext) else ev.called_api(v) if isinstance(v, CallVal) else None
    if name is None or name in api.GPU_SEMAPHORE_TYPES:
        return None
    desc = api.NOT_GPU_SEMAPHORE_TYPES.get(name)
    return (name, desc) if desc else None


class GetGlobalOfNonSemaphore(ApiInContextRule):
    """`pl.get_global` only supports GMEM semaphores in a compiled Mosaic GPU kernel.

    Mosaic GPU's resource estimator and lowering rule for `get_global` accept only
    `plgpu.SemaphoreType.REGULAR` (a semaphore in GPU global memory, optionally
    shaped). SMEM or GMEM arrays, `plgpu.Barrier`, barrier semaphores and TPU
    semaphore types raise `NotImplementedError: get_global only supports
    semaphores, got ...` while the kernel is lowered — even when the result is
    unused, since the estimator walks every equation. Lowering for CUDA on a
    CPU-only machine (`jax.jit(f).trace(...).lower(lowering_platforms=("cuda",))`)
    reproduces it. In an interpret mode, rule PAL001 applies instead.
    """

    code = "PAL002"
    name = "get-global-non-semaphore"
    record = "get-global-only-supports-semaphores-got-what"
    summary = "pl.get_global of a non-semaphore in a compiled Mosaic GPU kernel"
    construct = api.GET_GLOBAL
    construct_label = "pl.get_global"
    modes = frozenset({Mode.MOSAIC_GPU})

    def actual_error(self, hit) -> str | None:
        what = what_is_requested(hit)
        if what is None:
            return None
        if hit.launch.api.name == api.PALLAS_CALL and hit.result_unused():
            return None  # pallas_call may drop dead code first: not measured, stay quiet
        ref = what[1][what[1].find("(") + 1:-1] if "(" in what[1] else "..."
        return f"NotImplementedError: get_global only supports semaphores, got {ref}"

    def headline(self, hit) -> str:
        what = what_is_requested(hit)
        desc = what[1].split(" (")[0] if what else "this value"
        return f"`pl.get_global` only supports GMEM semaphores in a compiled Mosaic GPU kernel, not {desc}"

    def fixes(self, hit) -> list:
        if what_is_requested(hit) is None or what_is_requested(hit)[0] in (
                f"{api.PLGPU}.SemaphoreType.BARRIER",) or ".SemaphoreType." in what_is_requested(hit)[0]:
            return []
        fix = move_to_scratch_fix(hit, "Allocate it as kernel scratch ({key}=[{what}]); note that scratch lives "
                                       "for one kernel invocation, a global persists across invocations")
        return [fix] if fix is not None else []

    VALID = [
        Example(_HEADER + """

def body(o_ref):
    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
    pl.semaphore_signal(sem)
    pl.semaphore_wait(sem)
    o_ref[...] = jnp.ones_like(o_ref)


def main():
    kernel = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))
    lowered = jax.jit(kernel).trace().lower(lowering_platforms=("cuda",))
    print(len(lowered.as_text()) > 0)


if __name__ == "__main__":
    main()
""", note="A GMEM semaphore is what get_global is for.", oracle="lower-cuda"),
        Example(_HEADER + """

def body(x_ref, o_ref, stash):
    stash[...] = x_ref[...]
    o_ref[...] = stash[...] * 2.0


def main():
    kernel = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32),
                          scratch_types=[plgpu.SMEM((128,), jnp.float32)])
    lowered = jax.jit(kernel).trace(jax.ShapeDtypeStruct((128,), jnp.float32)).lower(
        lowering_platforms=("cuda",))
    print(len(lowered.as_text()) > 0)


if __name__ == "__main__":
    main()
""", note="An SMEM buffer allocated as kernel scratch instead.", oracle="lower-cuda"),
    ]
    INVALID = [
        Example(_HEADER + """

def body(x_ref, o_ref):
    stash = pl.get_global(plgpu.SMEM((128,), jnp.float32))  # error
    stash[...] = x_ref[...]
    o_ref[...] = stash[...] * 2.0


def main():
    kernel = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))
    lowered = jax.jit(kernel).trace(jax.ShapeDtypeStruct((128,), jnp.float32)).lower(
        lowering_platforms=("cuda",))
    print(len(lowered.as_text()) > 0)


if __name__ == "__main__":
    main()
""", oracle="lower-cuda", raises=("NotImplementedError", r"get_global only supports semaphores, got Ref<smem>"),
            fixes=("Allocate it as kernel scratch (scratch_types=[plgpu.SMEM((128,), jnp.float32)]); note that "
                   "scratch lives for one kernel invocation, a global persists across invocations",)),
        Example(_HEADER + """

def body(o_ref):
    bar = pl.get_global(plgpu.SemaphoreType.BARRIER)  # error
    o_ref[...] = jnp.zeros_like(o_ref)


def main():
    kernel = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))
    lowered = jax.jit(kernel).trace().lower(lowering_platforms=("cuda",))
    print(len(lowered.as_text()) > 0)


if __name__ == "__main__":
    main()
""", note="A barrier semaphore is not a regular one; unused, it still fails.", oracle="lower-cuda",
            raises=("NotImplementedError", r"get_global only supports semaphores, got Ref<gmem>\{barrier_semaphore")),
    ]
