"""The TMA-store fixes that go through a new SMEM buffer (rules/scratch_fixes.py): the exact
edits, and where the buffer's shape or the store's place is not known, no fix. Each declared
fix's whole program runs under JAX in tests/oracle (the PAL106 and PAL113 examples)."""
from pallas_lsp.analysis.edits import apply_edits
from pallas_lsp.rules import analyse

HEADER = """import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu
"""
TRANSPOSE = "Transpose in SMEM first (a new buffer of the transposed shape) and store that to the untransposed ref"
REDUCE = ("Reduce in SMEM instead: read the destination into a new buffer, reduce there, store plainly "
          "(not atomic across blocks)")


def fixes_of(code, rule_code):
    (finding,) = [f for f in analyse(code, "example.py").findings if f.code == rule_code]
    return {f.title: f for f in finding.fixes if not f.title.startswith("Ignore")}


def kernel(store, smem="plgpu.SMEM((16, 8), jnp.float32)", extra=""):
    return HEADER + f"""

def body(x_gmem, o_gmem, smem, barrier):
    plgpu.copy_gmem_to_smem(x_gmem, smem, barrier)
    plgpu.barrier_wait(barrier){extra}
    plgpu.commit_smem()
    {store}
    plgpu.wait_smem_to_gmem(0)


def run(x):
    return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((8, 16), jnp.float32),
                        scratch_types=[{smem}, plgpu.Barrier()],
                        interpret=plgpu.InterpretGPUParams())(x)
"""


def test_a_store_to_a_transposed_view_goes_through_a_transposed_smem_buffer():
    for store in ("plgpu.copy_smem_to_gmem(smem, o_gmem.T, commit_group=False)",
                  "plgpu.copy_smem_to_gmem(smem, o_gmem.transpose(1, 0), commit_group=False)"):
        code = kernel(store)
        fix = fixes_of(code, "PAL113")[TRANSPOSE]
        fixed = apply_edits(code, fix.edits)
        assert not fix.safe
        assert "def body(x_gmem, o_gmem, smem, barrier, smem_t):\n" in fixed
        assert "    smem_t[...] = smem[...].T\n    plgpu.commit_smem()\n" \
               "    plgpu.copy_smem_to_gmem(smem_t, o_gmem, commit_group=False)\n" in fixed
        assert "scratch_types=[plgpu.SMEM((16, 8), jnp.float32), plgpu.Barrier(), plgpu.SMEM((8, 16), jnp.float32)]" \
            in fixed


def test_no_transpose_fix_without_the_source_buffer_shape_or_for_other_permutations():
    # The source's shape is a name, not a literal tuple; a 3-D permutation; the name smem_t is taken.
    assert fixes_of(kernel("plgpu.copy_smem_to_gmem(smem, o_gmem.T)", smem="plgpu.SMEM(SHAPE, jnp.float32)"),
                    "PAL113") == {}
    assert fixes_of(kernel("plgpu.copy_smem_to_gmem(smem, o_gmem.transpose((2, 0, 1)))"), "PAL113") == {}
    taken = kernel("plgpu.copy_smem_to_gmem(smem, o_gmem.T)", extra="\n    smem_t = None")
    fixed = apply_edits(taken, fixes_of(taken, "PAL113")[TRANSPOSE].edits)
    assert "smem_t_2[...] = smem[...].T" in fixed


def test_a_reducing_store_reads_the_destination_reduces_in_smem_and_stores_plainly():
    code = kernel("plgpu.copy_smem_to_gmem(smem, o_gmem, reduction_op='max')")
    fix = fixes_of(code, "PAL106")[REDUCE]
    fixed = apply_edits(code, fix.edits)
    assert "def body(x_gmem, o_gmem, smem, barrier, smem_acc, smem_barrier):\n" in fixed
    assert ("    plgpu.copy_gmem_to_smem(o_gmem, smem_acc, smem_barrier)\n"
            "    plgpu.barrier_wait(smem_barrier)\n"
            "    smem_acc[...] = jnp.maximum(smem_acc[...], smem[...])\n"
            "    plgpu.commit_smem()\n"
            "    plgpu.copy_smem_to_gmem(smem_acc, o_gmem)\n") in fixed
    assert "plgpu.Barrier(), plgpu.SMEM((16, 8), jnp.float32), plgpu.Barrier()]" in fixed


def test_no_reduce_fix_for_wrapping_ops_or_a_source_that_is_not_kernel_scratch():
    assert fixes_of(kernel("plgpu.copy_smem_to_gmem(smem, o_gmem, reduction_op='inc')"), "PAL106") == {}
    helper = kernel("flush(smem, o_gmem)").replace(
        "\n\ndef body(",
        "\n\ndef flush(src, dst):\n    plgpu.copy_smem_to_gmem(src, dst, reduction_op='add')\n\n\ndef body(")
    assert fixes_of(helper, "PAL106") == {}
