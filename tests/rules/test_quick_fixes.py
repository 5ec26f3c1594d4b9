"""The quick fixes of PAL002 and PAL003 that replace what JAX rejects (each one's full program
runs under JAX in tests/oracle, through the rules' INVALID examples): the exact edits, and the
cases where nothing that runs exists, so nothing is offered."""
import pytest

from pallas_lsp.rules import analyse
from pallas_lsp.analysis.edits import apply_edits
from pallas_lsp.kinds.get_global_only_supports_semaphores_got_what.rule import GetGlobalOfNonSemaphore
from pallas_lsp.kinds.inline_mgpu_p_does_not_support_discharge.rule import InlineMgpuInInterpretMode

HEADER = """import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu
"""


def fixes_of(code, rule_code):
    (finding,) = [f for f in analyse(code, "example.py").findings if f.code == rule_code]
    return {f.title: f for f in finding.fixes if not f.title.startswith("Ignore")}


def get_global_kernel(what, use="    stash[...] = x_ref[...]\n    o_ref[...] = stash[...] * 2.0\n"):
    return HEADER + f"""

def body(x_ref, o_ref):
    stash = pl.get_global({what})
{use}

def main():
    kernel = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))
    return jax.jit(kernel).trace(jax.ShapeDtypeStruct((128,), jnp.float32)).lower(lowering_platforms=("cuda",))
"""


def test_a_gmem_array_becomes_an_smem_scratch_buffer_never_gmem_scratch():
    code = get_global_kernel("plgpu.GMEM((128,), jnp.float32)")
    (fix,) = fixes_of(code, "PAL002").values()
    fixed = apply_edits(code, fix.edits)
    assert "def body(x_ref, o_ref, stash):" in fixed and "pl.get_global" not in fixed
    assert "scratch_types=[plgpu.SMEM((128,), jnp.float32)])" in fixed and "GMEM" not in fixed
    assert not fix.preferred  # the buffer is no longer shared across blocks


def test_tpu_arrays_become_smem_and_sizes_past_shared_memory_get_no_fix():
    for space in ("pltpu.VMEM", "pltpu.SMEM"):
        (fix,) = fixes_of(get_global_kernel(f"{space}((8, 128), jnp.bfloat16)"), "PAL002").values()
        assert "Mosaic GPU cannot allocate TPU memory" in fix.title
        assert "scratch_types=[plgpu.SMEM((8, 128), jnp.bfloat16)]" in apply_edits(
            get_global_kernel(f"{space}((8, 128), jnp.bfloat16)"), fix.edits)
    # 1 MiB does not fit in 227 KiB of shared memory: Mosaic GPU rejects it when lowering.
    for space in ("plgpu.GMEM", "plgpu.SMEM"):
        assert fixes_of(get_global_kernel(f"{space}((1 << 18,), jnp.float32)"), "PAL002") == {}
    assert fixes_of(get_global_kernel("plgpu.SMEM((N,), jnp.float32)").replace(
        "\n\ndef body", "\nN = 1024 * 1024\n\n\ndef body"), "PAL002") == {}
    assert fixes_of(get_global_kernel("pltpu.ANY((128,), jnp.float32)"), "PAL002") == {}


def test_a_tpu_semaphore_becomes_the_gpu_one_shaped_or_not():
    use = "    pl.semaphore_signal(stash)\n    o_ref[...] = x_ref[...]\n"
    for what, want in (("pltpu.SemaphoreType.REGULAR", "plgpu.SemaphoreType.REGULAR"),
                       ("pltpu.SemaphoreType.REGULAR((2,))", "plgpu.SemaphoreType.REGULAR((2,))")):
        code = get_global_kernel(what, use)
        (fix,) = fixes_of(code, "PAL002").values()
        assert fix.title == "Use the GPU semaphore type (plgpu.SemaphoreType.REGULAR)" and fix.preferred
        assert f"stash = pl.get_global({want})\n" in apply_edits(code, fix.edits)
    # Written with another local name for mosaic_gpu: that name is used.
    code = get_global_kernel("pltpu.SemaphoreType.REGULAR", use).replace(
        "from jax.experimental.pallas import mosaic_gpu as plgpu\n", "import jax.experimental.pallas.mosaic_gpu as mg\n"
    ).replace("plgpu.kernel", "mg.kernel")
    (fix,) = fixes_of(code, "PAL002").values()
    assert "pl.get_global(mg.SemaphoreType.REGULAR)" in apply_edits(code, fix.edits)
    # No GPU counterpart that get_global accepts: nothing but "ignore".
    for what in ("pltpu.SemaphoreType.DMA", "pltpu.SemaphoreType.BARRIER", "plgpu.SemaphoreType.BARRIER"):
        assert fixes_of(get_global_kernel(what, use), "PAL002") == {}, what


def inline_mgpu_program(launch, returns=""):
    return HEADER + f"""

def kernel(x_ref, o_ref):
    @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),){returns})
    def fence(ctx, ref):
        del ctx, ref

    o_ref[...] = x_ref[...] - 1.0
    fence(o_ref)


def main():
    x = jnp.zeros((128,), jnp.float32)
{launch}
"""


GPU_TITLE = ('Interpret it as a Mosaic GPU kernel: plgpu.InterpretGPUParams(inline_mgpu="ignore") '
             '(the inline_mgpu call is skipped)')


def test_tpu_interpret_params_become_the_gpu_interpreter_that_skips_the_call():
    launch = ("    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
              "                          interpret=pltpu.InterpretParams(dma_execution_mode=\"eager\"))(x)")
    code = inline_mgpu_program(launch)
    fix = fixes_of(code, "PAL003")[GPU_TITLE]
    assert fix.preferred
    assert 'interpret=plgpu.InterpretGPUParams(inline_mgpu="ignore"))(x)' in apply_edits(code, fix.edits)
    # Params built in a variable first: that call is the one edited.
    code = inline_mgpu_program("    params = pltpu.InterpretParams()\n" + launch.replace(
        'pltpu.InterpretParams(dma_execution_mode="eager")', "params"))
    fixed = apply_edits(code, fixes_of(code, "PAL003")[GPU_TITLE].edits)
    assert 'params = plgpu.InterpretGPUParams(inline_mgpu="ignore")\n' in fixed


def test_no_gpu_interpreter_fix_where_it_would_not_run():
    launch = ("    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
              "                          interpret=pltpu.InterpretParams())(x)")
    # A call that returns a value fails even with inline_mgpu="ignore".
    code = inline_mgpu_program(launch, returns=", return_type=plgpu.ShapeDtypeStruct((128,), jnp.float32)")
    assert not any(t.startswith("Interpret it as") for t in fixes_of(code, "PAL003"))
    # ... however the TPU interpreter was chosen (a setter too).
    code = inline_mgpu_program(
        "    with pltpu.force_tpu_interpret_mode(pltpu.InterpretParams()):\n"
        "        return plgpu.kernel(kernel, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)",
        returns=", return_type=plgpu.ShapeDtypeStruct((128,), jnp.float32)")
    assert not any(t.startswith("Interpret it as") for t in fixes_of(code, "PAL003"))


FORCE_GPU = 'plgpu.force_gpu_interpret_mode(plgpu.InterpretGPUParams(inline_mgpu="ignore"))'


def test_a_tpu_setter_handed_params_becomes_the_gpu_setter_that_skips_the_call():
    # The params handed to the setter may be shared: the setter call is what changes, whole.
    code = inline_mgpu_program(
        "    shared = pltpu.InterpretParams(detect_races=True)\n"
        "    with pltpu.force_tpu_interpret_mode(shared):\n"
        "        run = pl.kernel(kernel, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), mesh=plgpu.Mesh())\n"
        "    return run(x), shared")
    title = f"Interpret it as a Mosaic GPU kernel: {FORCE_GPU} (the inline_mgpu call is skipped)"
    fix = fixes_of(code, "PAL003")[title]
    assert fix.preferred
    fixed = apply_edits(code, fix.edits)
    assert f"    with {FORCE_GPU}:\n" in fixed and "    shared = pltpu.InterpretParams(detect_races=True)\n" in fixed
    # set_tpu_interpret_mode, reached through a caller: the set call in that caller changes.
    code = inline_mgpu_program(
        "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)\n\n\n"
        "def debug():\n"
        "    pltpu.set_tpu_interpret_mode()\n"
        "    return main()")
    new = 'plgpu.set_gpu_interpret_mode(plgpu.InterpretGPUParams(inline_mgpu="ignore"))'
    fixed = apply_edits(code, fixes_of(code, "PAL003")[
        f"Interpret it as a Mosaic GPU kernel: {new} (the inline_mgpu call is skipped)"].edits)
    assert f"def debug():\n    {new}\n    return main()" in fixed


def test_the_rules_declare_these_fixes_on_examples_the_oracle_runs():
    declared = {t for cls in (GetGlobalOfNonSemaphore, InlineMgpuInInterpretMode) for ex in cls.INVALID
                for t in ex.fixes}
    assert "Use the GPU semaphore type (plgpu.SemaphoreType.REGULAR)" in declared
    assert GPU_TITLE in declared
    assert any(t.startswith("Allocate it in shared memory") for t in declared)
    assert not any("GMEM(" in t for t in declared)


def signal_kernel(core, interpret="True", imports=HEADER):
    return imports + f"""

def kernel(x_ref, o_ref, sem):
    pl.semaphore_signal(sem, 1, core_index={core})
    pl.semaphore_wait(sem, 1)
    o_ref[...] = x_ref[...]


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          scratch_shapes=[pltpu.SemaphoreType.REGULAR], interpret={interpret})(x)
"""


def test_tpu_interpret_params_are_offered_for_a_signal_to_core_zero_only():
    title = "Interpret it as a TPU kernel (interpret=pltpu.InterpretParams(); the signalled core 0 is its one core)"
    fix = fixes_of(signal_kernel(0), "PAL207")[title]
    assert "interpret=pltpu.InterpretParams())(x)" in apply_edits(signal_kernel(0), fix.edits)
    # Core 1 does not exist in the interpreter's default of one core (an IndexError under JAX),
    # and a core the analysis cannot tell is not claimed.
    assert fixes_of(signal_kernel(1), "PAL207") == {}
    assert fixes_of(signal_kernel("c").replace("def kernel", "c = int(input())\n\n\ndef kernel"), "PAL207") == {}


def test_a_module_placeholder_in_a_fix_value_is_imported_in_the_module_own_words():
    title = "Interpret it as a TPU kernel (interpret=pltpu.InterpretParams(); the signalled core 0 is its one core)"
    aliased = HEADER.replace("from jax.experimental.pallas import tpu as pltpu\n",
                             "import jax.experimental.pallas.tpu as tpu_mod\n")
    code = signal_kernel(0, imports=aliased).replace("pltpu.SemaphoreType", "tpu_mod.SemaphoreType")
    fixed = apply_edits(code, fixes_of(code, "PAL207")[title].edits)
    assert "interpret=tpu_mod.InterpretParams())(x)" in fixed and "pltpu" not in fixed
    bare = signal_kernel(0, imports=HEADER.replace("from jax.experimental.pallas import tpu as pltpu\n", ""))
    bare = bare.replace("scratch_shapes=[pltpu.SemaphoreType.REGULAR], ", "")
    fixed = apply_edits(bare, fixes_of(bare, "PAL207")[title].edits)
    assert "import jax.experimental.pallas.tpu as pltpu\n" in fixed and "interpret=pltpu.InterpretParams()" in fixed


def test_a_gpu_memory_space_in_a_tpu_interpreted_kernel_becomes_vmem():
    code = HEADER + """

def kernel(x_ref, o_ref, tmp):
    tmp[...] = x_ref[...]
    o_ref[...] = tmp[...]


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          scratch_shapes=[plgpu.SMEM((8, 128), jnp.float32)],
                          interpret=pltpu.InterpretParams())(x)
"""
    (fix,) = fixes_of(code, "PAL208").values()
    assert "scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)]" in apply_edits(code, fix.edits)


def test_tpu_interpret_params_for_a_remote_signal_only_under_shard_map():
    code = HEADER + """from jax.sharding import PartitionSpec as P


def kernel(x_ref, o_ref, sem):
    pl.semaphore_signal(sem, 1, device_id=0)
    pl.semaphore_wait(sem, 1)
    o_ref[...] = x_ref[...]


def step(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          scratch_shapes=[pltpu.SemaphoreType.REGULAR], interpret=True)(x)
"""
    # Outside a shard_map the TPU interpreter has no device 0 to signal (an AssertionError).
    assert fixes_of(code, "PAL206") == {}
    mapped = code + "\n\nrun = jax.shard_map(step, mesh=jax.make_mesh((1,), ('x',)), in_specs=P(), out_specs=P())\n"
    (fix,) = fixes_of(mapped, "PAL206").values()
    assert "interpret=pltpu.InterpretParams())(x)" in apply_edits(mapped, fix.edits)


def test_an_hbm_operand_written_in_a_helper_is_put_in_vmem_by_its_block_spec():
    code = HEADER + """

def write_out(dst, val):
    dst[...] = val


def kernel(x_ref, o_hbm):
    write_out(o_hbm, x_ref[...] - 1.0)


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          out_specs=pl.BlockSpec(memory_space=pltpu.MemorySpace.HBM),
                          interpret=pltpu.InterpretParams())(x)
"""
    (fix,) = fixes_of(code, "PAL515").values()
    assert "`o_hbm`" in fix.title and not fix.safe
    assert "out_specs=pl.BlockSpec(memory_space=pltpu.VMEM)," in apply_edits(code, fix.edits)
    # A pl.kernel on a TPU mesh has no BlockSpec to change: its operands are in HBM.
    mesh = HEADER + """

def body(x_hbm, o_hbm):
    o_hbm[...] = x_hbm[...]


def run(x):
    return pl.kernel(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                     mesh=pltpu.create_tensorcore_mesh("core"), interpret=pltpu.InterpretParams())(x)
"""
    assert fixes_of(mesh, "PAL515") == {}


def tma_store_kernel(copy_line):
    return HEADER + f"""

def body(x_gmem, o_gmem, smem, barrier):
    plgpu.copy_gmem_to_smem(x_gmem, smem, barrier)
    plgpu.barrier_wait(barrier)
    plgpu.commit_smem()
    leader = jax.lax.axis_index("wg") == 0
    {copy_line}
    plgpu.wait_smem_to_gmem(0)


def run(x):
    return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32),
                        scratch_types=[plgpu.SMEM((128,), jnp.float32), plgpu.Barrier()],
                        num_threads=1, thread_name="wg", interpret=plgpu.InterpretGPUParams())(x)
"""


WHEN_TITLE = "Issue the copy under @pl.when(predicate) instead of passing the predicate"


def test_a_predicated_tma_store_becomes_an_unpredicated_one_under_pl_when():
    for copy_line in ("plgpu.copy_smem_to_gmem(smem, o_gmem, leader, commit_group=True)",
                      "plgpu.copy_smem_to_gmem(smem, predicate=leader, dst=o_gmem, commit_group=True)"):
        code = tma_store_kernel(copy_line)
        fix = fixes_of(code, "PAL107")[WHEN_TITLE]
        assert not fix.safe
        fixed = apply_edits(code, fix.edits)
        copy = ("plgpu.copy_smem_to_gmem(smem, o_gmem, commit_group=True)" if "predicate=" not in copy_line
                else "plgpu.copy_smem_to_gmem(smem, dst=o_gmem, commit_group=True)")
        assert f"    @pl.when(leader)\n    def _():\n        {copy}\n    plgpu.wait_smem_to_gmem(0)" in fixed
        compile(fixed, "fixed.py", "exec")


def test_no_pl_when_fix_where_the_copy_is_not_a_statement_of_its_own_line():
    # A decorated def cannot follow `x = 1;` on a line, nor replace a call used as a value.
    for copy_line in ("n = 1; plgpu.copy_smem_to_gmem(smem, o_gmem, leader)",
                      "done = plgpu.copy_smem_to_gmem(smem, o_gmem, leader)"):
        assert WHEN_TITLE not in fixes_of(tma_store_kernel(copy_line), "PAL107")
    # With a reduction_op the copy would still fail (PAL106): not offered.
    code = tma_store_kernel("plgpu.copy_smem_to_gmem(smem, o_gmem, leader, reduction_op='add')")
    assert WHEN_TITLE not in fixes_of(code, "PAL107")


def tmem_kernel(load_line, extra=""):
    return HEADER + f"""

def body(x_ref, o_ref, peak_ref, acc):
    plgpu.async_store_tmem(acc, x_ref[...])
    plgpu.commit_tmem(){extra}
    {load_line}
    plgpu.wait_load_tmem()
    o_ref[...] = vals
    peak_ref[...] = peak


def run(x):
    return plgpu.kernel(body, out_type=(jax.ShapeDtypeStruct(x.shape, x.dtype),
                                        jax.ShapeDtypeStruct((128,), x.dtype)),
                        scratch_types=[plgpu.TMEM((128, 64), jnp.float32)],
                        interpret=plgpu.InterpretGPUParams())(x)
"""


def test_a_reducing_tmem_load_becomes_a_load_and_the_matching_jnp_reduction():
    expected = {"max": "jnp.max(loaded, axis=-1)", "min": "jnp.min(loaded, axis=-1)",
                "absmax": "jnp.max(jnp.abs(loaded), axis=-1)", "absmin": "jnp.min(jnp.abs(loaded), axis=-1)"}
    for reduce, reduction in expected.items():
        code = tmem_kernel(f"vals, peak = plgpu.async_load_tmem(acc, layout=None, reduce={reduce!r})")
        (fix,) = fixes_of(code, "PAL103").values()
        fixed = apply_edits(code, fix.edits)
        assert f"vals, peak = (loaded := plgpu.async_load_tmem(acc, layout=None), {reduction})\n" in fixed


def test_no_reducing_load_fix_that_would_overwrite_a_name_the_kernel_uses():
    code = tmem_kernel("vals, peak = plgpu.async_load_tmem(acc, reduce='max')", extra="\n    loaded = 1")
    assert fixes_of(code, "PAL103") == {}


def test_a_pallas_call_with_mosaic_gpu_params_becomes_plgpu_kernel_only_without_grid_or_specs():
    def lowered(launch):
        return HEADER + f"""

def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def main():
    x = jax.ShapeDtypeStruct((128,), jnp.float32)
    call = {launch}
    return jax.jit(call).trace(x).lower(lowering_platforms=("cuda",))
"""
    code = lowered("pl.pallas_call(kernel, x, compiler_params=plgpu.CompilerParams(approx_math=True))")
    (fix,) = fixes_of(code, "PAL302").values()
    assert not fix.safe
    assert "call = plgpu.kernel(kernel, out_type=x, compiler_params=plgpu.CompilerParams(approx_math=True))\n" \
        in apply_edits(code, fix.edits)
    # A grid or block specs mean something else to plgpu.kernel (a mesh; no blocks): no fix.
    for extra in ("grid=(2,)", "in_specs=[pl.BlockSpec((64,), lambda i: (i,))]", "name='k'"):
        code = lowered(f"pl.pallas_call(kernel, x, {extra}, compiler_params=plgpu.CompilerParams())")
        assert fixes_of(code, "PAL302") == {}, extra


BARRIER_TITLE = "Pass the copy a new barrier (plgpu.Barrier() kernel scratch) and wait on it"


def copy_kernel(body, scratch="scratch_types=[plgpu.SMEM((128,), jnp.float32)], "):
    return HEADER + f"""

def stage(src, dst):
    plgpu.copy_gmem_to_smem(src, dst)


def body(x_gmem, o_gmem, x_smem):
{body}
    plgpu.commit_smem()
    plgpu.copy_smem_to_gmem(x_smem, o_gmem)


def run(x):
    return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), {scratch}
                        interpret=plgpu.InterpretGPUParams())(x)
"""


def test_a_copy_without_barrier_gets_a_new_barrier_scratch_and_a_wait():
    code = copy_kernel("    plgpu.copy_gmem_to_smem(x_gmem, x_smem, None)  # stage in")
    fix = fixes_of(code, "PAL101")[BARRIER_TITLE]
    fixed = apply_edits(code, fix.edits)
    assert "def body(x_gmem, o_gmem, x_smem, barrier):\n" \
           "    plgpu.copy_gmem_to_smem(x_gmem, x_smem, barrier=barrier)\n" \
           "    plgpu.barrier_wait(barrier)  # stage in\n" in fixed
    assert "scratch_types=[plgpu.SMEM((128,), jnp.float32), plgpu.Barrier()]," in fixed
    # No scratch list yet: one is added.
    bare = copy_kernel("    plgpu.copy_gmem_to_smem(x_gmem, x_smem)", scratch="")
    fixed = apply_edits(bare, fixes_of(bare, "PAL101")[BARRIER_TITLE].edits)
    assert "scratch_types=[plgpu.Barrier()]" in fixed and "x_smem, barrier):" in fixed


def test_no_barrier_fix_where_the_buffer_cannot_be_threaded_through():
    # In a helper (the barrier would have to be passed down), or with the name taken.
    assert BARRIER_TITLE not in fixes_of(copy_kernel("    stage(x_gmem, x_smem)"), "PAL101")
    taken = copy_kernel("    barrier = 1\n    plgpu.copy_gmem_to_smem(x_gmem, x_smem)")
    assert BARRIER_TITLE not in fixes_of(taken, "PAL101")


def test_a_ref_union_in_pallas_call_scratch_moves_to_plgpu_kernel_scratch_types():
    def launch(extra):
        return HEADER + f"""

def kernel(x_ref, o_ref, shared):
    first, _ = shared
    first[...] = x_ref[...] + 2.0
    o_ref[...] = first[...]


def run(x):
    union = plgpu.RefUnion(plgpu.SMEM((64,), jnp.float32), plgpu.SMEM((64,), jnp.float32))
    return pl.pallas_call(kernel, jax.ShapeDtypeStruct(x.shape, x.dtype), scratch_shapes=[union]{extra})(x)


def main(x):
    with plgpu.force_gpu_interpret_mode():
        return run(x)
"""
    code = launch(", interpret=plgpu.InterpretGPUParams()")
    (fix,) = fixes_of(code, "PAL109").values()
    assert "return plgpu.kernel(kernel, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), scratch_types=[union], " \
           "interpret=plgpu.InterpretGPUParams())(x)\n" in apply_edits(code, fix.edits)
    code = launch("")  # (the mode from the context manager, read when plgpu.kernel is called)
    (fix,) = fixes_of(code, "PAL109").values()
    assert "plgpu.kernel(kernel, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), scratch_types=[union])(x)" \
        in apply_edits(code, fix.edits)
    assert fixes_of(launch(", grid=(1,)"), "PAL109") == {}


ABSTRACT_TITLE = "Lower under an abstract CUDA device (jax.sharding.use_abstract_mesh naming an H100): no GPU needed"


def triton_lowering(statement):
    return HEADER + f"""

def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def main():
    x = jax.ShapeDtypeStruct((128,), jnp.float32)
    call = pl.pallas_call(kernel, out_shape=x)
    {statement}
    return x
"""


def test_a_triton_lowering_for_cuda_is_put_under_an_abstract_gpu_only_when_lowered_not_exported():
    code = triton_lowering('lowered = jax.jit(call).trace(x).lower(\n        lowering_platforms=("cuda",))  # lower')
    fix = fixes_of(code, "PAL403")[ABSTRACT_TITLE]
    fixed = apply_edits(code, fix.edits)
    assert ('    with jax.sharding.use_abstract_mesh(jax.sharding.AbstractMesh((1,), ("x",), abstract_device='
            'jax.sharding.AbstractDevice(device_kind="NVIDIA H100 80GB HBM3", num_cores=None, platform="cuda"))):\n'
            '        lowered = jax.jit(call).trace(x).lower(\n'
            '            lowering_platforms=("cuda",))  # lower\n    return x\n') in fixed
    # Exported, Triton's custom calls then cannot be serialized: no fix; nor for a statement
    # sharing its line, or spanned by a string that indenting would change.
    for statement in ('exported = jax.export.export(jax.jit(call), platforms=["cuda"])(x)',
                      'n = 1; lowered = jax.jit(call).trace(x).lower(lowering_platforms=("cuda",))',
                      'lowered = (jax.jit(call).trace(x).lower(lowering_platforms=("cuda",)), """a\nb""")'):
        assert fixes_of(triton_lowering(statement), "PAL403") == {}, statement


def test_a_closed_over_ref_loses_its_memory_space_only_with_interpret_true():
    def closing(interpret):
        return HEADER + f"""

@jax.jit
def offset(x):
    base = jax.new_ref(jnp.zeros((8, 128), jnp.float32), memory_space=pltpu.SMEM)

    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] + base[...]

    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret={interpret})(x)
"""
    code = closing("True")
    (fix,) = fixes_of(code, "PAL513").values()
    assert "base = jax.new_ref(jnp.zeros((8, 128), jnp.float32))\n" in apply_edits(code, fix.edits)
    # TPU interpret params put a Ref without a memory space in ANY, which a kernel may not read.
    assert fixes_of(closing("pltpu.InterpretParams()"), "PAL513") == {}


EXTEND_TITLE = "Extend the interpret-mode `with` block over the calls that read the mode after it"


def ctx_program(main_body):
    return HEADER + f"""

def body(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def main(x):
{main_body}

if __name__ == "__main__":
    main(jnp.ones((128,), jnp.float32))
"""


def test_the_interpret_block_is_extended_over_the_reads_right_after_it():
    code = ctx_program("    with plgpu.force_gpu_interpret_mode():\n"
                       "        twice = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))\n"
                       "    # keep\n    y = twice(x)\n\n    return twice(y)\n")
    fixed = apply_edits(code, fixes_of(code, "PAL511")[EXTEND_TITLE].edits)
    assert ("    with plgpu.force_gpu_interpret_mode():\n"
            "        twice = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))\n"
            "        # keep\n        y = twice(x)\n\n        return twice(y)\n") in fixed


def test_no_extended_block_where_other_statements_or_strings_would_move_in():
    # A statement between that does not read the launch would run interpreted too; a string
    # spanning the lines to move would change.
    between = ctx_program("    with plgpu.force_gpu_interpret_mode():\n"
                          "        twice = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))\n"
                          "    z = jnp.sin(x)\n    return twice(z)\n")
    assert EXTEND_TITLE not in fixes_of(between, "PAL511")
    spanned = ctx_program("    with plgpu.force_gpu_interpret_mode():\n"
                          "        twice = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))\n"
                          '    return twice(x), """a\nb"""\n')
    assert EXTEND_TITLE not in fixes_of(spanned, "PAL511")


def test_a_peeking_wait_is_made_to_consume_only_when_no_other_wait_would_then_block():
    def waits(helper_wait):
        return HEADER + f"""

def peek(sem):
    pl.semaphore_wait(sem, 1, decrement=False)


def kernel(x_ref, o_ref, sem):
    pl.semaphore_signal(sem, 1)
    peek(sem)
{helper_wait}    o_ref[...] = x_ref[...]


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          scratch_shapes=[pltpu.SemaphoreType.REGULAR], interpret=pltpu.InterpretParams())(x)
"""
    title = "Wait with decrement=True (the wait then consumes the value)"
    code = waits("")
    assert "pl.semaphore_wait(sem, 1)\n" in apply_edits(code, fixes_of(code, "PAL201")[title].edits)
    # A wait after the peek: consuming the signal in the peek would leave that one blocked (the
    # oracle saw the fixed program hang).
    assert title not in fixes_of(waits("    pl.semaphore_wait(sem, 1)\n"), "PAL201")


CLOSED_OVER = HEADER + """

@jax.jit
def bump(x):
    table = jax.new_ref(jnp.zeros(x.shape, x.dtype))

    def kernel(x_ref, o_ref):
{body}

    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=plgpu.InterpretGPUParams()){applied}
"""


def test_a_closed_over_ref_is_passed_as_an_input_only_where_the_kernel_just_reads_it():
    reads = "        o_ref[...] = x_ref[...] + table[...]"
    code = CLOSED_OVER.format(body=reads, applied="(x)")
    (fix,) = fixes_of(code, "PAL512").values()
    fixed = apply_edits(code, fix.edits)
    assert "def kernel(x_ref, table, o_ref):" in fixed
    assert "interpret=plgpu.InterpretGPUParams())(x, table[...])" in fixed
    assert not fix.safe
    # A kernel that writes the Ref (or hands it to a helper that may): its value alone would lose
    # the write, so nothing is offered.
    for body in ("        table[...] = x_ref[...]\n        o_ref[...] = table[...]",
                 "        pl.store(table, (slice(None),), x_ref[...])\n        o_ref[...] = table[...]"):
        assert not fixes_of(CLOSED_OVER.format(body=body, applied="(x)"), "PAL512")
    # A launch not applied at once to positional inputs: where the input goes is not this edit's.
    assert not fixes_of(CLOSED_OVER.format(body=reads, applied=""), "PAL512")


def test_a_module_interpret_switch_keeps_deciding_after_the_interpreter_fix():
    code = HEADER + """
INTERPRET = True


def run(x):
    return plgpu.kernel(lambda x_ref, o_ref: None, out_type=jax.ShapeDtypeStruct((256,), jnp.float32),
                        num_threads=2, thread_name="wg", interpret=INTERPRET)(x)
"""
    (fix,) = fixes_of(code, "PAL205").values()
    assert "interpret=plgpu.InterpretGPUParams() if INTERPRET else INTERPRET)" in apply_edits(code, fix.edits)
    # A literal True is simply replaced.
    literal = code.replace("interpret=INTERPRET", "interpret=True")
    (fix,) = fixes_of(literal, "PAL205").values()
    assert "interpret=plgpu.InterpretGPUParams())" in apply_edits(literal, fix.edits)


PREBUILT = HEADER + """

def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


add_one = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((128,), jnp.float32))


def main(x):
{body}
"""
BUILD_TITLE = "Build `add_one` inside the interpret-mode `with` block"


def _build_fixes(body):
    return [t for t in fixes_of(PREBUILT.format(body=body), "PAL511") if t.startswith(BUILD_TITLE)]


def test_a_prebuilt_launch_is_built_again_inside_the_block_only_where_the_copy_means_the_same():
    inside = "    with plgpu.force_gpu_interpret_mode():\n        return add_one(x)"
    code = PREBUILT.format(body=inside)
    (title,) = _build_fixes(inside)
    fixed = apply_edits(code, fixes_of(code, "PAL511")[title].edits)
    assert ("    with plgpu.force_gpu_interpret_mode():\n        add_one = pl.pallas_call(kernel, out_shape="
            "jax.ShapeDtypeStruct((128,), jnp.float32))\n        return add_one(x)") in fixed
    assert "\nadd_one = pl.pallas_call(" in fixed  # (the module's build stays for other users)
    # Called outside the block too: the copy would make that call interpreted as well.
    assert not _build_fixes("    y = add_one(x)\n" + inside.replace("add_one(x)", "add_one(y)"))
    # The function binds a name the build reads: the copy would read another `kernel`.
    assert not _build_fixes("    kernel = None\n" + inside)


PINNED = HEADER + """
jax.config.update("jax_platforms", "cpu")
DEBUG = False


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def run(x, mode={default}):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((128,), jnp.float32), interpret={value})(x)


print(run(jnp.ones((128,), jnp.float32)))
"""
ON_CPU_HOSTS = "Interpret it where it runs on a CPU"


def _cpu_host_fix(default, value):
    code = PINNED.format(default=default, value=value)
    titles = [t for t in fixes_of(code, "PAL510") if t.startswith(ON_CPU_HOSTS)]
    if not titles:
        return None
    (title,) = titles
    return apply_edits(code, fixes_of(code, "PAL510")[title].edits)


def test_a_falsy_interpret_setting_on_a_cpu_host_is_made_to_interpret_there():
    host = 'jax.default_backend() == "cpu"'
    # A literal False or None is replaced; anything else keeps what it selects off CPU hosts.
    assert f"interpret={host})(x)" in _cpu_host_fix("None", "False")
    assert f"interpret={host})(x)" in _cpu_host_fix("None", "None")
    assert f"interpret=mode or {host})(x)" in _cpu_host_fix("False", "mode")
    assert f"interpret=DEBUG or {host})(x)" in _cpu_host_fix("None", "DEBUG")
    # (A value that is not an atom is parenthesised: `a if b else c or d` would mean another thing.)
    assert f"interpret=(DEBUG and mode) or {host})(x)" in _cpu_host_fix("None", "DEBUG and mode")
    # The parameter's default is left alone: it would be evaluated when `run` is defined.
    assert "def run(x, mode=False):" in _cpu_host_fix("False", "mode")


def test_an_inverted_host_test_at_the_launch_becomes_the_host_test():
    fixed = _cpu_host_fix("None", 'jax.default_backend() != "cpu"')
    assert 'interpret=jax.default_backend() == "cpu")(x)' in fixed and "!=" not in fixed


def test_a_launch_lowered_for_cpu_is_made_to_interpret_on_every_host():
    # Lowering for cpu needs interpret mode whatever the host: a host test would be False on a GPU.
    code = HEADER + """

def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


X = jax.ShapeDtypeStruct((128,), jnp.float32)
add_one = pl.pallas_call(kernel, out_shape=X)
print(jax.jit(add_one).trace(X).lower(lowering_platforms=("cpu",)).as_text()[:80])
"""
    (title,) = [t for t in fixes_of(code, "PAL510") if t.startswith(ON_CPU_HOSTS)]
    assert title.endswith("(interpret=True)")
    fixed = apply_edits(code, fixes_of(code, "PAL510")[title].edits)
    assert "add_one = pl.pallas_call(kernel, out_shape=X, interpret=True)" in fixed


KERNEL_GRAD = HEADER + """

def body(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


double = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32), interpret=True)


def loss(x):
{use}


def main():
    print(jax.grad(loss)(jnp.ones((128,), jnp.float32))[:4])
"""
STOP = "Stop the gradient at the kernel's inputs"


def test_a_kernel_jax_cannot_differentiate_gets_its_inputs_stopped():
    code = KERNEL_GRAD.format(use="    return (double(x) * x).sum()")
    (title,) = [t for t in fixes_of(code, "PAL507") if t.startswith(STOP)]
    fixed = apply_edits(code, fixes_of(code, "PAL507")[title].edits)
    assert "return (double(jax.lax.stop_gradient(x)) * x).sum()" in fixed
    assert not fixes_of(code, "PAL507")[title].safe  # (the gradient changes: none flows through the kernel)
    assert [f.code for f in analyse(fixed, "example.py").findings] == []


def test_no_stopped_inputs_where_the_application_cannot_be_told_or_is_the_transformed_kernel():
    twice = KERNEL_GRAD.format(use="    return (double(x) * double(x * 2.0)).sum()")
    assert not [t for t in fixes_of(twice, "PAL507") if t.startswith(STOP)]  # (which one is differentiated?)
    direct = HEADER + """

def body(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def main():
    x = jnp.ones((128,), jnp.float32)
    double = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)
    print(double(x)[:4])
    print(jax.jvp(double, (x,), (jnp.ones_like(x),)))
"""
    # jax.jvp takes the kernel itself: stopping another call's input would change nothing.
    assert not [t for t in fixes_of(direct, "PAL507") if t.startswith(STOP)]


IM2COL = HEADER + """

def body(x_gmem, o_gmem, smem, barrier):
    windows = plgpu.im2col_ref(x_gmem, window_shape={window}, padding=((1, 1), (1, 1)))
    plgpu.copy_gmem_to_smem(windows.at[pl.ds(0, 64), 1, 1, pl.ds(0, 16)], smem, barrier)
    plgpu.barrier_wait(barrier){more}
    plgpu.commit_smem()
    plgpu.copy_smem_to_gmem(smem, o_gmem)
    plgpu.wait_smem_to_gmem(0)


def main():
    x = jnp.ones((1, 8, 8, 16), jnp.float32)
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((64, 16), jnp.float32),
                       scratch_types=[plgpu.SMEM((64, 16), jnp.float32), plgpu.Barrier()],
                       interpret=plgpu.InterpretGPUParams())
    print(run(x)[0, :4]){again}
"""
ROWS = "Build the im2col rows outside the kernel"


def test_an_im2col_copy_reads_rows_built_outside_the_kernel():
    code = IM2COL.format(window="(3, 3)", more="", again="")
    (title,) = [t for t in fixes_of(code, "PAL102") if t.startswith(ROWS)]
    assert title.endswith("(a new input, `x_gmem_windows`)")
    fixed = apply_edits(code, fixes_of(code, "PAL102")[title].edits)
    assert "def body(x_gmem, x_gmem_windows, o_gmem, smem, barrier):" in fixed
    assert "plgpu.copy_gmem_to_smem(x_gmem_windows.at[pl.ds(0, 64), 1, 1, pl.ds(0, 16)], smem, barrier)" in fixed
    assert "im2col_ref" not in fixed.split("def body")[1]  # (the view is gone)
    assert "print(run(x, _im2col_rows(x, (3, 3), ((1, 1), (1, 1))))[0, :4])" in fixed
    assert fixed.index("def _im2col_rows(") < fixed.index("def body(")
    assert [f.code for f in analyse(fixed, "example.py").findings] == []


@pytest.mark.parametrize("window, more, again", [
    ("WINDOW", "", ""),  # (not a literal: it would be written where the kernel is applied)
    ("(3, 3)", "\n    plgpu.copy_gmem_to_smem(windows.at[pl.ds(0, 64), 0, 0, pl.ds(0, 16)], smem, barrier)", ""),
    ("(3, 3)", "", "\n    print(run(x * 2.0)[0, :4])"),  # (two applications)
])
def test_no_rows_built_outside_where_the_edit_cannot_be_told(window, more, again):
    code = IM2COL.format(window=window, more=more, again=again)
    code = code.replace("\n\ndef body", "\n\nWINDOW = (3, 3)\n\n\ndef body")
    for fixes in [fixes_of_all(code, "PAL102")]:
        assert not [t for t in fixes if t.startswith(ROWS)]


def fixes_of_all(code, rule_code):
    return [f.title for finding in analyse(code, "example.py").findings if finding.code == rule_code
            for f in finding.fixes]


def test_a_bare_force_gpu_interpret_mode_gets_params_that_skip_inline_mgpu():
    # (the fix's imports broke when the rule moved into its kind folder: no fix was offered)
    code = HEADER + """

def kernel(x_ref, o_ref):
    @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
    def fence(ctx, ref):
        pass

    o_ref[...] = x_ref[...] + 1.0
    fence(o_ref)


def main():
    x = jnp.zeros((128,), jnp.float32)
    with plgpu.force_gpu_interpret_mode():
        return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
"""
    fixes = fixes_of(code, "PAL003")
    fix = fixes['Add inline_mgpu="ignore" to the GPU interpret params (the call is skipped while interpreting)']
    assert [e.new_text for e in fix.edits] == ['plgpu.InterpretGPUParams(inline_mgpu="ignore")']
