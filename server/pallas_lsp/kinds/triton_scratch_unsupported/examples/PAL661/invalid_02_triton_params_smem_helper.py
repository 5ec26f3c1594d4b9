# pallas-lsp example: invalid
# note: Triton compiler params chosen by the code, the scratch list built by a helper, the launch built in a helper.
# raises: NotImplementedError: scratch memory not implemented in the Triton backend
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import triton as plt
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def staging(n):
    return [plgpu.SMEM((n,), jnp.float16), plgpu.SMEM((n,), jnp.float16)]


def swap_halves_kernel(a_ref, b_ref, oa_ref, ob_ref, ta_ref, tb_ref):
    ta_ref[...] = a_ref[...]
    tb_ref[...] = b_ref[...]
    oa_ref[...] = tb_ref[...]
    ob_ref[...] = ta_ref[...]


def build(n):
    out = jax.ShapeDtypeStruct((n,), jnp.float16)
    return pl.pallas_call(swap_halves_kernel, out_shape=(out, out), compiler_params=plt.CompilerParams(num_warps=4),
                          scratch_shapes=staging(n))  # error


def main():
    gpu = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                       abstract_device=AbstractDevice(device_kind="NVIDIA H100", num_cores=132, platform="gpu"))
    half = jax.ShapeDtypeStruct((512,), jnp.float16)
    with use_abstract_mesh(gpu):
        print(jax.jit(build(512)).trace(half, half).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
