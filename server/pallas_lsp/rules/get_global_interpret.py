"""PAL001: ``pl.get_global`` reached from a kernel that runs in any interpret mode."""
from __future__ import annotations

from ..analysis import api
from ..analysis.contexts import Mode
from ..analysis.evaluate import Ext
from ..analysis.fixes import move_to_scratch_fix, run_compiled_fix
from .base import ApiInContextRule, Example

_HEADER = """import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu
"""

TYPE_ERROR = ("TypeError: No ir_type_handler for aval type: <class 'jax._src.state.types.AbstractRef'> "
              "(the record's \"get_global discharge is not supported in interpret mode.\" is never reached)")
GMEM_KEY_ERROR = "KeyError: <MemorySpace.GMEM: 'gmem'> (the TPU interpreter has no GPU global memory)"


class GetGlobalInInterpretMode(ApiInContextRule):
    """`pl.get_global` cannot run in interpret mode.

    `pl.get_global` allocates a global buffer (on GPU, a semaphore in global
    memory). None of the interpreters can discharge it: with `interpret=True`,
    GPU `InterpretGPUParams` or TPU `InterpretParams`, tracing the kernel leaves a
    Ref-typed value that lowering for the CPU cannot handle. Current JAX fails with
    `TypeError: No ir_type_handler for aval type: AbstractRef` rather than the
    record's message (the discharge rule is registered but never called); under
    TPU interpret params, `plgpu.kernel`, `pl.kernel` and `pl.core_map` fail even
    earlier with `KeyError: <MemorySpace.GMEM: 'gmem'>`.

    One exception, measured: inside `pl.pallas_call` an unused `get_global` result
    is removed as dead code and the kernel runs. Under `plgpu.kernel`, `pl.kernel`
    and `core_map` it is kept and fails.
    """

    code = "PAL001"
    name = "get-global-interpret"
    record = "get-global-discharge-is-not-supported-in-interpret"
    summary = "pl.get_global reached from a kernel launched in an interpret mode"
    apis = frozenset({api.GET_GLOBAL})
    label = "pl.get_global"
    modes = frozenset({Mode.INTERPRET, Mode.TPU_INTERPRET, Mode.GPU_INTERPRET})

    def actual_error(self, hit) -> str | None:
        launch_api = hit.launch.api.name
        if launch_api == api.PALLAS_CALL and hit.result_unused():
            return None  # dead code: pallas_call drops it before lowering
        if hit.context.mode == Mode.TPU_INTERPRET and launch_api != api.PALLAS_CALL:
            return GMEM_KEY_ERROR
        return TYPE_ERROR

    def headline(self, hit) -> str:
        return "`pl.get_global` cannot run in interpret mode"

    def offer_fixes(self, hit) -> list:
        out = []
        arg = hit.ev.posarg(hit.call, 0)
        what = hit.ev.value(arg, hit.call.scope, hit.ev.order_of(hit.call)) if arg is not None else None
        name = what.name if isinstance(what, Ext) else None
        # Measured under jax 0.12: a plgpu semaphore passed as scratch runs under interpret=True; a TPU
        # semaphore as scratch runs under TPU interpret params; under GPU interpret params it fails.
        if (hit.context.mode == Mode.INTERPRET and name == f"{api.PLGPU}.SemaphoreType.REGULAR") or \
                (hit.context.mode == Mode.TPU_INTERPRET and hit.launch.api.name == api.PALLAS_CALL
                 and name is not None and name.startswith(f"{api.PLTPU}.SemaphoreType.")):
            fix = move_to_scratch_fix(hit, "Pass the semaphore to the kernel as scratch ({key}=[{what}])")
            if fix is not None:
                out.append(fix)
        rc = run_compiled_fix(hit.ev.index, hit.launch, hit.context)
        if rc is not None:
            out.append(rc)
        return out

    VALID = [
        Example(_HEADER + """

def kernel(x_ref, o_ref, sem):
    pl.semaphore_signal(sem)
    pl.semaphore_wait(sem)
    o_ref[...] = x_ref[...] + 1.0


def main():
    x = jnp.zeros((8,), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         scratch_shapes=[plgpu.SemaphoreType.REGULAR], interpret=True)(x)
    print(out)


if __name__ == "__main__":
    main()
""", note="The semaphore passed as kernel scratch instead of taken with get_global runs in interpret mode."),
        Example(_HEADER + """

def kernel(x_ref, o_ref):
    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
    o_ref[...] = x_ref[...] + 1.0


def main():
    x = jnp.zeros((8,), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
    print(out)


if __name__ == "__main__":
    main()
""", note="An unused get_global inside pallas_call is dead code and is dropped."),
        Example(_HEADER + """

def unused_helper():
    return pl.get_global(plgpu.SemaphoreType.REGULAR)


def kernel(x_ref, o_ref):
    if False:
        unused_helper()
    o_ref[...] = x_ref[...] * 2.0


def main():
    x = jnp.zeros((8,), jnp.float32)
    print(pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x))


if __name__ == "__main__":
    main()
""", note="Code Python never runs is never traced."),
    ]
    INVALID = [
        Example(_HEADER + """

def kernel(x_ref, o_ref):
    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)  # error
    pl.semaphore_signal(sem)
    pl.semaphore_wait(sem)
    o_ref[...] = x_ref[...] + 1.0


def main():
    x = jnp.zeros((8,), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
    print(out)


if __name__ == "__main__":
    main()
""", raises=("TypeError", r"No ir_type_handler for aval type"),
            fixes=("Pass the semaphore to the kernel as scratch (scratch_shapes=[plgpu.SemaphoreType.REGULAR])",)),
        Example(_HEADER + """

def acquire():
    return pl.get_global(plgpu.SemaphoreType.REGULAR)  # error


def kernel(x_ref, o_ref):
    sem = acquire()
    pl.semaphore_signal(sem)
    pl.semaphore_wait(sem)
    o_ref[...] = x_ref[...] + 1.0


def main():
    x = jnp.zeros((128,), jnp.float32)
    with plgpu.force_gpu_interpret_mode():
        out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
    print(out)


if __name__ == "__main__":
    main()
""", note="A helper one call below the kernel, GPU interpret mode forced by a context manager.",
            raises=("TypeError", r"No ir_type_handler for aval type")),
        Example(_HEADER + """

def body(x_ref, o_ref):
    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)  # error
    o_ref[...] = x_ref[...]


def main():
    k = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32),
                     interpret=pltpu.InterpretParams())
    print(k(jnp.zeros((128,), jnp.float32)))


if __name__ == "__main__":
    main()
""", note="Under plgpu.kernel even an unused get_global fails; TPU interpret params fail on GMEM first.",
            raises=("KeyError", r"gmem")),
    ]
