# pallas-lsp example: invalid
# note: Triton compiler params on a decorated pallas_call with three scalar-prefetch tables.
# raises: NotImplementedError: scalar prefetch not implemented in the Triton backend
# oracle: lower-cuda
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import triton as plt
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

TABLES = 3


@functools.partial(
    pl.pallas_call,
    out_shape=jax.ShapeDtypeStruct((256,), jnp.float32),
    grid_spec=pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=TABLES,  # error
        grid=(2,),
        in_specs=[pl.BlockSpec((128,), lambda i, a, b, c: (a[i],))],
        out_specs=pl.BlockSpec((128,), lambda i, a, b, c: (i,)),
    ),
    compiler_params=plt.CompilerParams(num_warps=4),
)
def pick(a_ref, b_ref, c_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


def main():
    gpu = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                       abstract_device=AbstractDevice(device_kind="NVIDIA H100", num_cores=132, platform="gpu"))
    idx = jax.ShapeDtypeStruct((2,), jnp.int32)
    x = jax.ShapeDtypeStruct((256,), jnp.float32)
    with use_abstract_mesh(gpu):
        print(jax.jit(pick).trace(idx, idx, idx, x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
