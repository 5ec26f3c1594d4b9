# pallas-lsp example: invalid
# note: No BlockSpecs: the whole (3, 64) array (192 elements) is the block; Triton params on a decorated launch.
# raises: ValueError: The Pallas Triton lowering currently requires that all operations have array arguments and results whose size is a power of 2\. Encountered an array of shape \(3, 64\)
# oracle: lower-cuda
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plt
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


@functools.partial(  # error
    pl.pallas_call,
    out_shape=jax.ShapeDtypeStruct((3, 64), jnp.float32),
    compiler_params=plt.CompilerParams(num_warps=1),
)
def softplus(x_ref, o_ref):
    o_ref[...] = jnp.log1p(jnp.exp(x_ref[...]))


def main():
    gpu = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                       abstract_device=AbstractDevice(device_kind="NVIDIA H100", num_cores=132, platform="gpu"))
    x = jax.ShapeDtypeStruct((3, 64), jnp.float32)
    with use_abstract_mesh(gpu):
        print(jax.jit(softplus).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
