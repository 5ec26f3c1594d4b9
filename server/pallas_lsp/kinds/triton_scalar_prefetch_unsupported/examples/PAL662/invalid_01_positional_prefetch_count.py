# pallas-lsp example: invalid
# note: PrefetchScalarGridSpec with its count given positionally, a permutation of row blocks, lowered for CUDA (Triton).
# raises: NotImplementedError: scalar prefetch not implemented in the Triton backend
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

BLOCK = 32


def permute_kernel(order_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


def permute_blocks(order, x):
    steps = x.shape[0] // BLOCK
    grid_spec = pltpu.PrefetchScalarGridSpec(
        1,  # error
        grid=(steps,),
        in_specs=[pl.BlockSpec((BLOCK, 64), lambda i, order: (order[i], 0))],
        out_specs=pl.BlockSpec((BLOCK, 64), lambda i, order: (i, 0)),
    )
    return pl.pallas_call(permute_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid_spec=grid_spec)(order, x)


def main():
    gpu = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                       abstract_device=AbstractDevice(device_kind="NVIDIA H100", num_cores=132, platform="gpu"))
    order = jax.ShapeDtypeStruct((4,), jnp.int32)
    x = jax.ShapeDtypeStruct((4 * BLOCK, 64), jnp.bfloat16)
    with use_abstract_mesh(gpu):
        print(jax.jit(permute_blocks).trace(order, x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
