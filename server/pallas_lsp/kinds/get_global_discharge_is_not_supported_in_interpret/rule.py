"""PAL001: ``pl.get_global`` reached from a kernel that runs in any interpret mode."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.evaluate import Ext
from ...analysis.fixes import move_to_scratch_fix, run_compiled_fix
from ...rules.base import ApiInContextRule

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
        # Measured too: an SMEM array as kernel scratch runs under interpret=True and GPU interpret
        # params, in pl.pallas_call and plgpu.kernel (TPU interpret params have no SMEM of that kind).
        elif hit.context.mode in (Mode.INTERPRET, Mode.GPU_INTERPRET) \
                and hit.launch.api.name in (api.PALLAS_CALL, api.PLGPU_KERNEL) \
                and hit.ev.called_api(what) == f"{api.PLGPU}.SMEM":
            fix = move_to_scratch_fix(hit, "Allocate the buffer as kernel scratch ({key}=[{what}]); scratch lives for "
                                           "one kernel invocation")
            if fix is not None:
                out.append(fix)
        rc = run_compiled_fix(hit.ev.index, hit.launch, hit.context)
        if rc is not None:
            out.append(rc)
        return out
