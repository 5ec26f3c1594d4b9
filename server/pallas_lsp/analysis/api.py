"""The JAX names the analysis knows, under every path they can be imported from.

Pallas names live in private modules (``jax._src.pallas...``) and are re-exported
publicly; tests in the wild import both. :func:`canonical` maps any spelling to
the public one, so rules compare against a single name.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

PL = "jax.experimental.pallas"
PLGPU = "jax.experimental.pallas.mosaic_gpu"
PLTPU = "jax.experimental.pallas.tpu"
PLTRITON = "jax.experimental.pallas.triton"

# Private module prefix -> public module. Longest prefix wins.
_MODULE_ALIASES = {
    "jax._src.pallas.primitives": PL,
    "jax._src.pallas.helpers": PL,
    "jax._src.pallas.core": PL,
    "jax._src.pallas.pallas_call": PL,
    "jax._src.pallas.utils": PL,
    "jax._src.state.discharge": PL,
    "jax._src.pallas.mosaic_gpu.core": PLGPU,
    "jax._src.pallas.mosaic_gpu.primitives": PLGPU,
    "jax._src.pallas.mosaic_gpu.helpers": PLGPU,
    "jax._src.pallas.mosaic_gpu.interpret.params": PLGPU,
    "jax._src.pallas.mosaic_gpu.interpret.interpret_pallas_call": PLGPU,
    "jax._src.pallas.mosaic_gpu.interpret": PLGPU,
    "jax._src.pallas.mosaic_gpu": PLGPU,
    "jax._src.pallas.mosaic.interpret.params": PLTPU,
    "jax._src.pallas.mosaic.interpret.interpret_pallas_call": PLTPU,
    "jax._src.pallas.mosaic.interpret": PLTPU,
    "jax._src.pallas.mosaic.core": PLTPU,
    "jax._src.pallas.mosaic.primitives": PLTPU,
    "jax._src.pallas.mosaic": PLTPU,
    "jax._src.pallas.triton.core": PLTRITON,
    "jax._src.pallas.triton": PLTRITON,
    "jax.experimental.pallas.gpu": PLTRITON,  # old alias of the Triton module
    "jax._src.api": "jax",
    "jax._src.numpy": "jax.numpy",
    "jax._src.lax.lax": "jax.lax",
    "jax.export": "jax.export",
    "jax._src.export._export": "jax.export",
    "jax.experimental.export": "jax.export",
    "jax._src.pallas.mosaic_gpu.pallas_call_registration": PLGPU,
}
# Names that are spelled differently in the public module.
_NAME_ALIASES = {
    f"{PLGPU}.MemorySpace.SMEM": f"{PLGPU}.SMEM",
    f"{PLGPU}.MemorySpace.GMEM": f"{PLGPU}.GMEM",
    f"{PLGPU}.MemorySpace.TMEM": f"{PLGPU}.TMEM",
    f"{PLGPU}.GPUMemorySpace.SMEM": f"{PLGPU}.SMEM",
    f"{PLGPU}.GPUMemorySpace.GMEM": f"{PLGPU}.GMEM",
    f"{PLGPU}.GPUCompilerParams": f"{PLGPU}.CompilerParams",
    f"{PLGPU}.GPUMesh": f"{PLGPU}.Mesh",
    f"{PLTPU}.TPUCompilerParams": f"{PLTPU}.CompilerParams",
    f"{PLTPU}.TPUInterpretParams": f"{PLTPU}.InterpretParams",
    f"{PLTRITON}.TritonCompilerParams": f"{PLTRITON}.CompilerParams",
    f"{PL}.dslice": f"{PL}.ds",
    "jax.api.jit": "jax.jit",
    "jax.export.export": "jax.export",
}

# Public names used by the rules (keep rules free of spelled-out module paths).
PALLAS_CALL = f"{PL}.pallas_call"
PL_KERNEL = f"{PL}.kernel"
CORE_MAP = f"{PL}.core_map"
PLGPU_KERNEL = f"{PLGPU}.kernel"
GET_GLOBAL = f"{PL}.get_global"
INLINE_MGPU = f"{PLGPU}.inline_mgpu"
GPU_INTERPRET_PARAMS = f"{PLGPU}.InterpretGPUParams"
TPU_INTERPRET_PARAMS = f"{PLTPU}.InterpretParams"
FORCE_GPU_INTERPRET = f"{PLGPU}.force_gpu_interpret_mode"
SET_GPU_INTERPRET = f"{PLGPU}.set_gpu_interpret_mode"
FORCE_TPU_INTERPRET = f"{PLTPU}.force_tpu_interpret_mode"
SET_TPU_INTERPRET = f"{PLTPU}.set_tpu_interpret_mode"
GRID_SPEC = f"{PL}.GridSpec"
TPU_PREFETCH_GRID_SPEC = f"{PLTPU}.PrefetchScalarGridSpec"
WHEN = f"{PL}.when"
RUN_STATE = f"{PL}.run_state"
JIT = "jax.jit"
PARTIAL = "functools.partial"
DEFAULT_BACKEND = "jax.default_backend"
LOWER_AS_MLIR = "jax.experimental.pallas.lower_as_mlir"  # (lowers for ["tpu"] unless told)

GPU_MESHES = {f"{PLGPU}.Mesh", f"{PLGPU}.WarpMesh"}
GPU_COMPILER_PARAMS = {f"{PLGPU}.CompilerParams"}
TRITON_COMPILER_PARAMS = {f"{PLTRITON}.CompilerParams"}
TPU_COMPILER_PARAMS = {f"{PLTPU}.CompilerParams"}
TPU_MESHES = {f"{PLTPU}.create_tensorcore_mesh", f"{PLTPU}.create_sparsecore_mesh", f"{PLTPU}.TensorCoreMesh"}

# What get_global may be given in a compiled Mosaic GPU kernel (GMEM semaphores only).
GPU_SEMAPHORE_TYPES = {f"{PLGPU}.SemaphoreType.REGULAR"}
NOT_GPU_SEMAPHORE_TYPES = {
    f"{PLGPU}.SemaphoreType.BARRIER": "a barrier semaphore (Ref<gmem>{barrier_semaphore[]})",
    f"{PLGPU}.SMEM": "an SMEM array (Ref<smem>{...})",
    f"{PLGPU}.GMEM": "a GMEM array (Ref<gmem>{...})",
    f"{PLGPU}.TMEM": "a TMEM array",
    f"{PLGPU}.Barrier": "a barrier (Ref<smem>{barrier[]})",
    f"{PLGPU}.ClusterBarrier": "a cluster barrier",
    f"{PLTPU}.SemaphoreType.REGULAR": "a TPU semaphore (Ref<semaphore_mem>{semaphore[]})",
    f"{PLTPU}.SemaphoreType.DMA": "a TPU DMA semaphore",
    f"{PLTPU}.SemaphoreType.BARRIER": "a TPU barrier semaphore",
    f"{PLTPU}.VMEM": "a TPU VMEM array",
    f"{PLTPU}.SMEM": "a TPU SMEM array",
    f"{PLTPU}.ANY": "a TPU array",
}


# (A pure function of a string over constant tables: its memo is the same for every engine, so
# it may stay process-wide; it is bounded.)
@lru_cache(maxsize=65536)
def canonical(name: str) -> str:
    """The public spelling of a qualified name."""
    if name in _NAME_ALIASES:
        return _NAME_ALIASES[name]
    best = ""
    for prefix in _MODULE_ALIASES:
        if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > len(best):
            best = prefix
    if best:
        name = _MODULE_ALIASES[best] + name[len(best):]
    return _NAME_ALIASES.get(name, name)


@dataclass(frozen=True)
class LaunchAPI:
    name: str  # public qualified name
    short: str  # how users usually write it
    kernel_keywords: tuple[str, ...]
    reads_mode_at: str  # "build" or "call": when interpret= and force_*_interpret_mode are read
    scratch_keyword: str


LAUNCH_APIS: dict[str, LaunchAPI] = {
    PALLAS_CALL: LaunchAPI(PALLAS_CALL, "pl.pallas_call", ("kernel",), "build", "scratch_shapes"),
    PL_KERNEL: LaunchAPI(PL_KERNEL, "pl.kernel", ("body",), "build", "scratch_types"),
    PLGPU_KERNEL: LaunchAPI(PLGPU_KERNEL, "plgpu.kernel", ("body",), "call", "scratch_types"),
    CORE_MAP: LaunchAPI(CORE_MAP, "pl.core_map", (), "build", "scratch_shapes"),
}

# Higher-order APIs whose function argument (or decorated function) is traced right away
# inside the kernel.
TRACING_DECORATORS = {
    WHEN, f"{PL}.loop", f"{PL}.run_scoped", f"{PLGPU}.nd_loop", f"{PLGPU}.dynamic_scheduling_loop",
    f"{PL}.with_scoped", f"{PLTPU}.run_on_first_core", f"{PLGPU}.emit_pipeline", f"{PLTPU}.emit_pipeline",
    "jax.named_scope", "jax.checkpoint", "jax.remat", "jax.vmap", "jax.custom_vjp", "jax.custom_jvp",
}
