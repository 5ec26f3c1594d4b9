"""PAL311: ``plgpu.copy_gmem_to_smem`` under Lane semantics into a buffer whose size in bytes is
not a multiple of the warpgroup size (128). PAL312: the same copy made by Mosaic GPU's pipeline for
a ``pl.pallas_call``'s input block (jax 0.9, 0.10)."""
from __future__ import annotations

import ast

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.evaluate import ParamVal
from ...analysis.findings import Related
from ...analysis.gpu_launch import (WARPGROUP_SIZE, barriers_order_tensor_core, first_mosaic_gpu_pipeline_defect,
                                    first_unaligned_block_copy, mosaic_gpu_pipelines_pallas_call, scratch_buffer)
from ...analysis.rule_api import Hit, Report
from ...rules.base import PythonRule
from ...rules.triton_launch_rule import dynamic_grid_entry


class MgpuCopyBytesNotWarpgroupMultiple(PythonRule):
    """A TMA copy of a number of bytes that is not a multiple of 128, under Lane semantics.

    Under `plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Lane)` the Mosaic GPU
    lowering of `plgpu.copy_gmem_to_smem(src, dst, barrier)` (`_copy_gmem_to_smem_lowering`,
    `jax/_src/pallas/mosaic_gpu/primitives.py`) has every thread of the warpgroup arrive on the
    barrier with its share of the bytes, so the bytes the destination holds must divide by the
    warpgroup size (128): a 40-element float32 buffer (160 bytes) raises. Copies without a
    barrier, collective copies and barriers that order the tensor core are exempt. Size the
    SMEM buffer to a multiple of 128 bytes (32 float32, 64 bf16 elements). Lane is the default
    semantics in jax 0.8-0.10; Warpgroup, the default from 0.11, does not check it.
    """

    code = "PAL311"
    name = "mgpu-copy-bytes-not-warpgroup-multiple"
    record = "mgpu-copy-bytes-not-warpgroup-multiple"
    summary = "plgpu.copy_gmem_to_smem under Lane semantics into a buffer of a byte count not a multiple of 128"
    label = "plgpu.copy_gmem_to_smem"
    apis = frozenset({f"{api.PLGPU}.copy_gmem_to_smem"})
    modes = frozenset({Mode.MOSAIC_GPU})
    # (verified on plgpu.kernel; a pl.pallas_call given Mosaic GPU params fails before (PAL302), and
    # pl.kernel on a plgpu.Mesh refuses scratch operands in jax 0.11+)
    launch_apis = frozenset({api.PLGPU_KERNEL})

    def applies(self, hit: Hit) -> bool:
        ctx = hit.context
        return super().applies(hit) and ctx.lowered_for in (None, "cuda") and ctx.lowering_semantics == "lane"

    def check(self, hit: Hit) -> Report | None:
        barrier = hit.argument(2, "barrier")
        if barrier is None or (isinstance(barrier, ast.Constant) and barrier.value is None):
            return None  # (no barrier: the cp.async path, not checked)
        if hit.argument(None, "collective_axes") is not None:
            return None
        launch = hit.launch
        kernel = launch.kernel
        dst = hit.argument(1, "dst")
        if kernel is None or not isinstance(dst, ast.Name) or barriers_order_tensor_core(hit.ev, launch) is not False:
            return None
        v = hit.value(dst)
        if not isinstance(v, ParamVal) or v.scope is not kernel:
            return None
        buffer = scratch_buffer(hit.ev, launch, kernel, v.name)
        size = buffer.bytes if buffer is not None else None
        if size is None or size % WARPGROUP_SIZE == 0:
            return None
        node, scope, _ = buffer.where
        shape = ", ".join(map(str, buffer.shape)) + ("," if len(buffer.shape) == 1 else "")
        error = ("NotImplementedError: Only copies transferring a number of bytes divisible by the warpgroup size "
                 f"are supported. Got bytes={size} but warpgroup size is {WARPGROUP_SIZE}")
        headline = (f"`plgpu.copy_gmem_to_smem` fills `{v.name}`, a ({shape}) {buffer.dtype} buffer of {size} bytes: "
                    f"under Lane semantics a copy must move a multiple of {WARPGROUP_SIZE} bytes")
        return Report(error, headline, related=(Related(hit.span_of(node, scope), f"`{v.name}`: {size} bytes"),),
                      fixable=False)


class MgpuPallasCallBlockCopyBytes(PythonRule):
    """A `pl.pallas_call` input block of a byte count not a multiple of 128, compiled by Mosaic GPU
    under Lane semantics.

    In jax 0.9 and 0.10 a GPU `pl.pallas_call` without Triton params lowers through Mosaic GPU
    (`lower_pipelined_jaxpr_to_module`, `jax/_src/pallas/mosaic_gpu/lowering.py`) with Lane
    semantics by default. Its pipeline copies every input block in the default (SMEM) space from
    GMEM with `copy_gmem_to_smem` and a barrier, and under Lane semantics that copy's bytes must
    divide by the warpgroup size (128): a whole (100,) float32 array (400 bytes) or a (None, 20)
    float32 block (80 bytes) raises before the kernel body is lowered. Blocks of a multiple of
    128 bytes (32 float32, 64 bf16 elements) copy; inputs left in GMEM (`memory_space=pl.ANY`)
    are not copied. From jax 0.11 a plain GPU pallas_call lowers through Triton instead.
    """

    code = "PAL312"
    name = "mgpu-pallas-call-block-copy-bytes"
    record = "mgpu-copy-bytes-not-warpgroup-multiple"
    summary = ("a pl.pallas_call input block whose bytes are not a multiple of 128, copied into SMEM by Mosaic GPU "
               "(a GPU pallas_call's default backend in jax 0.9-0.10)")
    label = "pl.BlockSpec"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.MOSAIC_GPU})
    launch_apis = frozenset({api.PALLAS_CALL})
    verified_on = ("0.10.2",)  # (its examples run under jax 0.10.2: later releases lower through Triton)

    def applies(self, hit: Hit) -> bool:
        ctx = hit.context
        return (super().applies(hit) and ctx.lowered_for in (None, "cuda") and ctx.lowering_semantics == "lane"
                and mosaic_gpu_pipelines_pallas_call(hit.release))

    def check(self, hit: Hit) -> Report | None:
        earlier, known = first_mosaic_gpu_pipeline_defect(hit.ev, hit.launch, dynamic_grid_entry)
        if earlier is not None or not known:
            return None  # (a dynamic grid, scalar prefetch or foreign scratch fails first: PAL663, PAL662)
        found = first_unaligned_block_copy(hit.ev, hit.launch)
        if found is None:
            return None
        block = found.block
        node, scope, _ = block.where
        shape = "(" + ", ".join(map(str, found.shape)) + ("," if len(found.shape) == 1 else "") + ")"
        how = f"has the block {block.block_words()}" if block.has_block_shape else f"is copied whole, {shape}"
        error = ("NotImplementedError: Only copies transferring a number of bytes divisible by the warpgroup size "
                 f"are supported. Got bytes={found.bytes} but warpgroup size is {WARPGROUP_SIZE}")
        headline = (f"`{block.origin}` {how} {block.dtype}, {found.bytes} bytes, not a multiple of {WARPGROUP_SIZE}: "
                    f"jax {hit.release.version} compiles a GPU pallas_call with Mosaic GPU (Lane semantics), whose "
                    f"pipeline copies each input block into SMEM in multiples of {WARPGROUP_SIZE} bytes")
        related = tuple(Related(hit.span_of(w[0], w[1]), text) for w, text in block.related)
        return Report(error, headline, span=hit.span_of(node, scope), key=id(node), related=related, fixable=False)
