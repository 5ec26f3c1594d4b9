"""What the GPU backends' Python lowerings refuse in a launch's structure: which launches the
Triton lowering compiles, and the first structural check it fails (PAL660-PAL663).

JAX's Triton lowering (``jax/_src/pallas/triton/pallas_call_registration.py``,
``pallas_call_lowering``, then ``lowering.py``, ``lower_jaxpr_to_triton_module``) checks a
``pl.pallas_call``'s grid mapping in this order: dynamic grid bounds, scalar-prefetch operands,
then (after it asks for the GPU's compute capability) scratch operands; only then does it lower
the kernel body, where each load and store asks for a power-of-2 size. A launch fails with the
first of them only, so a rule reports its defect only where it is the first.

Unknown stays quiet: a count or a grid entry the analysis cannot read is no defect.
"""
from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from . import api
from .contexts import Context, JaxRelease, Mode
from .evaluate import CallVal, Evaluator, Order, TupleVal
from .launch_signature import dtype_name, grid_spec_call, is_allocation, kernel_arity, ref_counts, spec_keyword
from .launch_specs import first_spec_defect, read_launch_specs
from .scopes import Scope
from .shapes import shape_literal
from .tpu_blocks import TpuBlock, tpu_block_mappings

Where = tuple[ast.expr, Scope, Order]
# A grid entry that is a traced value, and why (the rule layer's static evaluator decides).
DynamicEntry = Callable[[Evaluator, object], "tuple[Where, str] | None"]

DYNAMIC_GRID = "dynamic-grid"
SCALAR_PREFETCH = "scalar-prefetch"
SCRATCH = "scratch"


@dataclass(frozen=True)
class TritonDefect:
    kind: str  # DYNAMIC_GRID, SCALAR_PREFETCH or SCRATCH: the check that fails, in JAX's order
    where: Where  # what to underline: the grid entry, num_scalar_prefetch=, scratch_shapes=
    detail: str  # the defect in words ("`steps` is ...", "2 scalar-prefetch operands")
    count: int = 0  # scalar-prefetch operands or scratch refs


def triton_lowered(ev: Evaluator, launch, ctx: Context, release: JaxRelease) -> bool:
    """Whether ``ctx`` compiles ``launch`` with Pallas's Triton backend: a ``pl.pallas_call``
    compiled by Triton (Triton compiler params, the ``backends`` setting), or lowered for CUDA
    without params that choose another backend, in a release whose GPU ``pallas_call`` lowers
    through Triton by default (jax 0.10 uses Mosaic GPU). TPU memory spaces in the specs do not
    change what a CUDA lowering runs: JAX picks the lowering by platform."""
    if launch.api.name != api.PALLAS_CALL or ctx.mode.is_interpret or ctx.cpu_host:
        return False
    if ctx.lowered_for not in (None, "cuda"):
        return False  # (lowered for a TPU, ROCm or the CPU: not the lowering verified here)
    params = _api_of(ev, launch.options.get("compiler_params"))
    if params is not None and params not in api.TRITON_COMPILER_PARAMS:
        return False  # (another backend's params: their own error, or Mosaic GPU)
    if params is not None:
        return True
    if ctx.mode == Mode.TRITON:
        # The ``backends`` setting says Triton; a launch written with TPU APIs is a TPU kernel
        # the setting does not describe.
        return not (ctx.configured and uses_tpu_apis(ev, launch))
    if ctx.lowered_for != "cuda" or ctx.mode not in (Mode.TPU, Mode.COMPILED):
        return False
    return release.gpu_pallas_call_backend == "triton"


def _api_of(ev: Evaluator, where) -> str | None:
    if where is None:
        return None
    v = ev.returned(ev.value(where[0], where[1], where[2]))
    return ev.called_api(v) if isinstance(v, CallVal) else ev.ext_name(v)


def uses_tpu_apis(ev: Evaluator, launch) -> bool:
    """Whether the launch's specs, grid spec or scratch are built from ``pltpu`` APIs."""
    for key in ("grid_spec", "in_specs", "out_specs", "scratch_shapes", "compiler_params"):
        opt = launch.options.get(key)
        if opt is not None and _mentions_tpu(ev, (opt[0], opt[1], opt[2]), 0):
            return True
    return False


def _mentions_tpu(ev: Evaluator, where: Where, depth: int) -> bool:
    if depth > 4:
        return False
    v = ev.returned(ev.value(*where))
    name = ev.called_api(v) if isinstance(v, CallVal) else ev.ext_name(v)
    if name and name.startswith(api.PLTPU + "."):
        return True
    if isinstance(v, TupleVal):
        return any(_mentions_tpu(ev, item, depth + 1) for item in v.items[:32])
    if isinstance(v, CallVal):
        args = list(v.site.positional) + list(v.site.keywords.values())
        return any(_mentions_tpu(ev, (a, v.site.scope, v.order), depth + 1) for a in args[:16])
    return False


def traced_first(ev: Evaluator, launch) -> bool:
    """Whether building the launch surely fails before any lowering (a spec or a kernel arity
    error JAX raises while tracing)."""
    if first_spec_defect(ev, launch) is not None:
        return True
    arity, counts = kernel_arity(launch), ref_counts(ev, launch)
    return arity is not None and counts is not None and not arity.accepts(counts.total)


def first_triton_defect(ev: Evaluator, launch, dynamic_entry: DynamicEntry) -> TritonDefect | None:
    """The first grid-mapping check of the Triton lowering that ``launch`` fails (None: none
    known to fail, or tracing fails first)."""
    if traced_first(ev, launch):
        return None
    dynamic = dynamic_entry(ev, launch)
    if dynamic is not None:
        where, reason = dynamic
        return TritonDefect(DYNAMIC_GRID, where, reason)
    prefetch, where = _scalar_prefetch(ev, launch)
    if prefetch is None:
        return None  # (it may have scalar-prefetch operands, which fail first)
    if prefetch > 0 and where is not None:
        return TritonDefect(SCALAR_PREFETCH, where, f"{prefetch} scalar-prefetch operand{'s' * (prefetch != 1)}",
                            prefetch)
    where = _scratch_where(ev, launch)
    scratch = scratch_count(ev, where) if where is not None else 0
    if scratch:
        return TritonDefect(SCRATCH, where, f"{scratch} scratch ref{'s' * (scratch != 1)}", scratch)
    return None


def mosaic_gpu_pipelined(ev: Evaluator, launch, ctx: Context, release: JaxRelease) -> bool:
    """Whether ``ctx`` compiles ``launch``, a ``pl.pallas_call``, with Mosaic GPU's block pipeline,
    in a release whose default GPU backend is Mosaic GPU (jax 0.9, 0.10): decided so, or lowered
    for CUDA without params that choose another backend (JAX picks the backend by platform: TPU
    memory spaces in the specs do not make it a TPU kernel there)."""
    if launch.api.name != api.PALLAS_CALL or ctx.mode.is_interpret or ctx.cpu_host:
        return False
    if ctx.lowered_for not in (None, "cuda") or not mosaic_gpu_pipelines_pallas_call(release):
        return False
    if ctx.mode == Mode.MOSAIC_GPU:
        return True
    if ctx.lowered_for != "cuda" or ctx.mode not in (Mode.TPU, Mode.COMPILED):
        return False
    params = _api_of(ev, launch.options.get("compiler_params"))
    return params is None or params.startswith(api.PLGPU + ".")


def first_mosaic_gpu_pipeline_defect(ev: Evaluator, launch, dynamic_entry: DynamicEntry
                                     ) -> tuple[TritonDefect | None, bool]:
    """The first grid-mapping check a pallas_call compiled by Mosaic GPU's pipeline fails (jax
    0.9-0.10: ``pallas_call_registration.py`` refuses a dynamic grid, then
    ``lower_pipelined_jaxpr_to_module`` scalar-prefetch operands, then the resource estimate a
    scratch ref in a memory space Mosaic GPU does not have, such as ``pltpu.VMEM``), and whether
    every check is known to pass when there is none (False: tracing fails first, or a count or an
    entry is not read)."""
    if traced_first(ev, launch):
        return None, False
    dynamic = dynamic_entry(ev, launch)
    if dynamic is not None:
        return TritonDefect(DYNAMIC_GRID, dynamic[0], dynamic[1]), True
    prefetch, where = _scalar_prefetch(ev, launch)
    if prefetch is None:
        return None, False
    if prefetch > 0 and where is not None:
        return TritonDefect(SCALAR_PREFETCH, where, f"{prefetch} scalar-prefetch operand{'s' * (prefetch != 1)}",
                            prefetch), True
    where = _scratch_where(ev, launch)
    if where is None:
        return None, True
    v = ev.returned(ev.value(*where))
    if not isinstance(v, TupleVal):
        return None, False
    with ev.within(v.frames):
        for item in v.items:
            made = ev.value(*item)
            name = ev.called_api(made) if isinstance(made, CallVal) else ev.ext_name(made)
            if name and name.startswith(api.PLTPU + "."):
                return TritonDefect(SCRATCH, item, f"a scratch ref in {name.rsplit('.', 1)[-1]}", 1), True
            if not (name and name.startswith(api.PLGPU + ".")):
                return None, False
    return None, True


def scratch_count(ev: Evaluator, where: Where) -> int | None:
    """How many scratch refs a ``scratch_shapes`` argument gives (a literal list or tuple, also
    one a helper returns, of memory-space allocations); None when unknown."""
    v = ev.returned(ev.value(*where))
    if isinstance(v, TupleVal):
        items = v.items
        with ev.within(v.frames):
            if all(is_allocation(ev, ev.value(*item)) for item in items):
                return len(items)
    return None  # (a dict of scratch refs, passed by keyword, or something not read)


def _scalar_prefetch(ev: Evaluator, launch) -> tuple[int | None, Where | None]:
    """``num_scalar_prefetch`` of the launch's grid spec (by keyword, or the first positional
    argument of ``PrefetchScalarGridSpec``) and where it is written: (0, None) without one,
    (None, None) when unknown."""
    if "grid_spec" not in launch.options:
        return 0, None
    spec = grid_spec_call(ev, launch)
    if spec is None:
        return None, None
    where = spec_keyword(ev, spec, "num_scalar_prefetch")
    if where is None and ev.called_api(spec) == api.TPU_PREFETCH_GRID_SPEC:
        node = ev.posarg(spec.site, 0)
        where = (node, spec.site.scope, ev.order_of(spec.site)) if node is not None else None
    if where is None:
        return 0, None
    count = ev.const(*where)
    if not isinstance(count, int) or isinstance(count, bool):
        return None, None
    return count, where


def _scratch_where(ev: Evaluator, launch) -> Where | None:
    """The ``scratch_shapes=`` argument, of the launch or of its grid spec."""
    opt = launch.options.get(launch.api.scratch_keyword)
    if opt is not None:
        return opt[0], opt[1], opt[2]
    spec = grid_spec_call(ev, launch)
    return spec_keyword(ev, spec, "scratch_shapes") if spec is not None else None


__all__ = ["DYNAMIC_GRID", "SCALAR_PREFETCH", "SCRATCH", "TritonDefect", "first_mosaic_gpu_pipeline_defect",
           "first_triton_defect", "mosaic_gpu_pipelined", "traced_first", "triton_lowered"]


@dataclass(frozen=True)
class NonPowerOfTwoBlock:
    param: str  # the kernel's ref parameter
    shape: tuple[int, ...]  # the block it holds (the whole array without a block shape)
    access: ast.AST  # the kernel's whole load or store of it (where the Triton lowering raises)
    where: Where  # what to underline: its BlockSpec, or the launch when it has none


def first_non_power_of_two_block(ev: Evaluator, launch, ref_shapes: dict[str, tuple[int, ...]]
                                 ) -> NonPowerOfTwoBlock | None:
    """The first whole load or store, in the kernel's own body, of a ref whose block holds a
    number of elements that is not a power of 2 (``ref_shapes``: the kernel's ref parameters and
    their blocks, where the code says them). The Triton lowering checks every operation's arrays
    (``_check_tensor_size`` in ``jax/_src/pallas/triton/lowering.py``); a whole load of such a
    ref makes one. Slices of it (``x_ref[pl.ds(0, 64)]``) are other sizes: not counted."""
    kernel = launch.kernel
    if kernel is None or kernel.kind != "function" or not isinstance(kernel.node, ast.FunctionDef):
        return None
    for access, name in _whole_accesses(kernel.node):
        shape = ref_shapes.get(name)
        if shape is None or _power_of_two(_size(shape)):
            continue
        where = _spec_of(ev, launch, kernel, name)
        if where is None:
            return None
        return NonPowerOfTwoBlock(name, shape, access, where)
    return None


def _size(shape: tuple[int, ...]) -> int:
    size = 1
    for d in shape:
        size *= d
    return size


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def _whole_accesses(fn: ast.FunctionDef):
    """``ref[...]`` / ``ref[:]`` of a plain name, loaded or stored, in the def's own top-level
    statements (not under ``if``/loops, not in functions it defines), in the order they run:
    statement by statement, a statement's loads (its right-hand side) before its stores."""
    found = []
    for stmt in fn.body:
        if isinstance(stmt, (ast.If, ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                             ast.With, ast.Try)):
            continue
        here = [node for node in _walk_outside_lambdas(stmt)
                if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and _whole(node.slice)]
        here.sort(key=lambda n: (not isinstance(n.ctx, ast.Load), n.lineno, n.col_offset))
        found += [(node, node.value.id) for node in here]
    return found


def _walk_outside_lambdas(node: ast.AST):
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Lambda):
            continue
        yield n
        stack.extend(ast.iter_child_nodes(n))


def _whole(index: ast.AST) -> bool:
    if isinstance(index, ast.Constant) and index.value is Ellipsis:
        return True
    return isinstance(index, ast.Slice) and index.lower is None and index.upper is None and index.step is None


def _spec_of(ev: Evaluator, launch, kernel, name: str) -> Where | None:
    """The BlockSpec that gives parameter ``name`` its block (where it is written), or the
    launch call when the launch has no specs."""
    params = [p[0] for p in kernel.params]
    if name not in params:
        return None
    position = params.index(name)
    specs: list[Where] = []
    for key in ("in_specs", "out_specs"):
        opt = launch.options.get(key)
        if opt is None:
            continue
        v = ev.value(opt[0], opt[1], opt[2])
        specs += list(v.items) if isinstance(v, TupleVal) else [(opt[0], opt[1], opt[2])]
    if not specs:
        return launch.site.node, launch.site.scope, ev.order_of(launch.site)
    if "in_specs" not in launch.options or "out_specs" not in launch.options or position >= len(specs):
        return None  # (the refs the specs describe cannot be lined up)
    node, scope, order = specs[position]
    v = ev.value(node, scope, order)
    if isinstance(v, CallVal):
        return v.site.node, v.site.scope, v.order
    return node, scope, order


# Bits per element of the dtypes a Mosaic GPU scratch buffer is commonly given.
_DTYPE_BITS = {
    "float32": 32, "int32": 32, "uint32": 32, "float16": 16, "bfloat16": 16, "int16": 16, "uint16": 16,
    "int8": 8, "uint8": 8, "float8_e4m3fn": 8, "float8_e5m2": 8, "float64": 64, "int64": 64,
}
WARPGROUP_SIZE = 128  # threads in a Mosaic GPU warpgroup (mosaic/gpu WARPGROUP_SIZE)


@dataclass(frozen=True)
class ScratchBuffer:
    param: str  # the kernel parameter that receives it
    shape: tuple[int, ...]
    dtype: str
    where: Where  # the scratch entry (``plgpu.SMEM((40,), jnp.float32)``)

    @property
    def bytes(self) -> int | None:
        bits = _DTYPE_BITS.get(self.dtype)
        return _size(self.shape) * bits // 8 if bits is not None else None


def scratch_buffer(ev: Evaluator, launch, kernel, param: str) -> ScratchBuffer | None:
    """The ``plgpu.SMEM(shape, dtype)`` scratch entry (of ``scratch_types=`` / ``scratch_shapes=``)
    that kernel parameter ``param`` receives, where shape and dtype are spelled out; the scratch
    refs are the kernel's last parameters, in order."""
    opt = launch.options.get(launch.api.scratch_keyword)
    params = [p[0] for p in kernel.params]
    if opt is None or param not in params:
        return None
    v = ev.value(opt[0], opt[1], opt[2])
    if not isinstance(v, TupleVal) or len(v.items) > len(params):
        return None
    position = params.index(param) - (len(params) - len(v.items))
    if position < 0:
        return None  # (an operand or an output: in GMEM)
    entry = ev.value(*v.items[position])
    if not isinstance(entry, CallVal) or ev.called_api(entry) != f"{api.PLGPU}.SMEM":
        return None
    site = entry.site
    shape_node = ev.kwarg(site, "shape") or ev.posarg(site, 0)
    dtype_node = ev.kwarg(site, "dtype") or ev.posarg(site, 1)
    shape = shape_literal(ev, shape_node, site.scope, entry.order) if shape_node is not None else None
    dtype = dtype_name(ev, dtype_node, site.scope, entry.order) if dtype_node is not None else None
    if shape is None or dtype is None:
        return None
    return ScratchBuffer(param, shape, dtype, (site.node, site.scope, entry.order))


def barriers_order_tensor_core(ev: Evaluator, launch) -> bool | None:
    """Whether some scratch barrier is ``plgpu.Barrier(..., orders_tensor_core=...)`` (its copies
    skip the warpgroup check); None when the scratch list cannot be read."""
    opt = launch.options.get(launch.api.scratch_keyword)
    if opt is None:
        return False
    v = ev.value(opt[0], opt[1], opt[2])
    if not isinstance(v, TupleVal):
        return None
    for item in v.items:
        entry = ev.value(*item)
        if isinstance(entry, CallVal) and ev.kwarg(entry.site, "orders_tensor_core") is not None:
            return True
    return False


@dataclass(frozen=True)
class LaneLoad:
    param: str
    shape: tuple[int, ...]
    load: ast.Subscript  # the whole load ``ref[...]``


def mosaic_gpu_pipelines_pallas_call(release: JaxRelease) -> bool:
    """Whether a ``pl.pallas_call`` that Mosaic GPU compiles reaches its block pipeline in the
    release: where a plain GPU pallas_call lowers through Mosaic GPU (jax 0.9, 0.10;
    ``lower_pipelined_jaxpr_to_module``). From 0.11 such a call fails before (PAL302), and in
    0.8 (Triton by default) it is not verified."""
    return release.gpu_pallas_call_backend == "mosaic_gpu"


@dataclass(frozen=True)
class UnalignedBlockCopy:
    """An input block Mosaic GPU's pipeline copies into SMEM whose size is not a multiple of 128
    bytes."""

    block: TpuBlock
    shape: tuple[int, ...]
    bytes: int


def input_block_copies(ev: Evaluator, launch) -> list[tuple[TpuBlock, tuple[int, ...] | None, int | None]] | None:
    """The input blocks of a ``pl.pallas_call`` that Mosaic GPU's pipeline copies from GMEM into
    SMEM (``BufferedRef.copy_in``: every input in the default space, each step, with a
    barrier), in order, each with its shape and bytes where the code says them; None when the
    inputs cannot be read or one is in a space not read here. Inputs left in GMEM
    (``pl.ANY``) are not copied. Scalar-prefetch operands and ``pipeline_mode`` make the lowering
    fail earlier (their own errors): None."""
    specs = read_launch_specs(ev, launch)
    if specs is None or specs.num_scalar_prefetch != 0:
        return None
    blocks = tpu_block_mappings(ev, launch)
    if blocks is None:
        return None
    copies: list[tuple[TpuBlock, tuple[int, ...] | None, int | None]] = []
    for block in blocks:
        if not block.origin.startswith("args") or block.memory_space == "any":
            continue
        if block.memory_space != "default":
            return None  # (plgpu's spaces or an unknown one)
        if block.entry is not None and ev.kwarg(block.entry.call.site, "pipeline_mode") is not None:
            return None
        shape: tuple[int, ...] | None = None
        if block.dims is None:
            shape = tuple(block.array) if block.array is not None and not block.has_block_shape else None
        elif all(d.squeezed or d.size is not None for d in block.dims):
            shape = tuple(1 if d.squeezed or d.size is None else d.size for d in block.dims)
        bits = _DTYPE_BITS.get(block.dtype or "")
        size = None
        if shape is not None and bits is not None and (_size(shape) * bits) % 8 == 0:
            size = _size(shape) * bits // 8
        copies.append((block, shape, size))
    return copies


def first_unaligned_block_copy(ev: Evaluator, launch) -> UnalignedBlockCopy | None:
    """The first input block Mosaic GPU's pipeline copies into SMEM whose bytes are not a
    multiple of the warpgroup size: under Lane semantics ``_copy_gmem_to_smem_lowering``
    refuses it. The inputs are copied in order, so an earlier one of unknown size keeps the
    verdict unknown (None)."""
    for block, shape, size in input_block_copies(ev, launch) or []:
        if size is None or shape is None:
            return None
        if size % WARPGROUP_SIZE:
            return UnalignedBlockCopy(block, shape, size)
    return None


def block_copies_aligned(ev: Evaluator, launch) -> bool:
    """Whether every input block Mosaic GPU's pipeline copies is surely a multiple of 128 bytes
    (so the copies pass and the kernel body is lowered next)."""
    copies = input_block_copies(ev, launch)
    return copies is not None and all(size is not None and size % WARPGROUP_SIZE == 0 for _, _, size in copies)


def first_lane_load_defect(ev: Evaluator, launch, ref_shapes: dict[str, tuple[int, ...]]) -> LaneLoad | None:
    """The first whole load (``ref[...]``), in the kernel's own body, of a ref whose element
    count is not a multiple of the warpgroup size: under Lane semantics Mosaic GPU loads it with
    a warpgroup-strided layout (``FragmentedArray.load_strided``), which needs one. The refs are
    the operands and outputs of ``ref_shapes`` and the kernel's ``plgpu.SMEM`` scratch."""
    kernel = launch.kernel
    if kernel is None or kernel.kind != "function" or not isinstance(kernel.node, ast.FunctionDef):
        return None
    for access, name in _whole_accesses(kernel.node):
        if not isinstance(access.ctx, ast.Load):
            continue
        shape = ref_shapes.get(name)
        if shape is None:
            buffer = scratch_buffer(ev, launch, kernel, name)
            shape = buffer.shape if buffer is not None else None
        if shape is None:
            return None  # (an unknown ref loaded first: it may fail first)
        if _size(shape) % WARPGROUP_SIZE:
            return LaneLoad(name, shape, access)
    return None
