# pallas-lsp example: invalid
# note: A grid entry made a jnp scalar inside a helper-built launch; Triton compiler params choose Triton.
# raises: NotImplementedError: dynamic grid bounds not supported in the Triton backend
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plt
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def square_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * x_ref[...]


def square(x):
    steps = jnp.int32(x.shape[0] // 64)
    return pl.pallas_call(
        square_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(steps,),  # error
        in_specs=[pl.BlockSpec((64,), lambda i: (i,))],
        out_specs=pl.BlockSpec((64,), lambda i: (i,)),
        compiler_params=plt.CompilerParams(num_warps=2),
    )(x)


def main():
    gpu = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                       abstract_device=AbstractDevice(device_kind="NVIDIA H100", num_cores=132, platform="gpu"))
    x = jax.ShapeDtypeStruct((256,), jnp.float16)
    with use_abstract_mesh(gpu):
        print(jax.jit(square).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
