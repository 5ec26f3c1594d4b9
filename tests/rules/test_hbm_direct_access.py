"""PAL515 on pl.kernel launches on a TPU mesh: which operands are in HBM (rules/hbm_direct_access.py).
The invalid and valid examples run under JAX in tests/oracle; these are shapes from real code
whose memory spaces only the code around the launch says."""
from pallas_lsp.rules import analyse

HEADER = """import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def bump(x_ref):
    x_ref[...] += 1.0
"""


def codes(text: str) -> list[tuple[str, int]]:
    return [(f.code, f.span.line) for f in analyse(text, "/tmp/hbm.py").findings]


def test_an_array_operand_of_pl_kernel_is_in_hbm():
    text = HEADER + """

def main():
    x = jnp.zeros((8, 128), jnp.float32)
    pl.kernel(bump, out_type=(), mesh=pltpu.create_tensorcore_mesh("core"), interpret=pltpu.InterpretParams())(x)
"""
    assert codes(text) == [("PAL515", 8)]


def test_a_ref_operand_keeps_its_own_memory_space():
    # jax's tests/pallas/tpu_pallas_mpmd_test.py passes VMEM Refs made with jax.new_ref to pl.kernel.
    text = HEADER + """

@jax.jit
def step(x):
    tc_mesh = pltpu.TensorCoreMesh(axis_name="tc", num_cores=1)
    x_ref = jax.new_ref(x, memory_space=pltpu.VMEM @ tc_mesh)
    pl.kernel(mesh=tc_mesh, interpret=pltpu.InterpretParams())(bump)(x_ref)
    return jax.freeze(x_ref)
"""
    assert codes(text) == []


def test_a_vmem_output_type_is_not_in_hbm():
    launch = """

def main():
    mesh = pltpu.create_tensorcore_mesh("core")
    return pl.kernel(lambda o_ref: bump(o_ref), out_type=OUT, mesh=mesh, interpret=pltpu.InterpretParams())()
"""
    assert codes(HEADER + launch.replace("OUT", "pltpu.VMEM((8, 128), jnp.float32)")) == []
    assert codes(HEADER + launch.replace("OUT", "jax.ShapeDtypeStruct((8, 128), jnp.float32)")) == [("PAL515", 8)]
