# pallas-lsp example: valid
# note: The clean twin of invalid_01: the order is an ordinary operand, read in the kernel.
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

BLOCK = 32


def permute_kernel(order_ref, x_ref, o_ref):
    src = order_ref[pl.program_id(0)]
    o_ref[...] = x_ref[pl.ds(src * BLOCK, BLOCK), :]


def permute_blocks(order, x):
    steps = x.shape[0] // BLOCK
    return pl.pallas_call(
        permute_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(steps,),
        in_specs=[pl.BlockSpec(order.shape, lambda i: (0,)), pl.BlockSpec(x.shape, lambda i: (0, 0))],
        out_specs=pl.BlockSpec((BLOCK, 64), lambda i: (i, 0)),
    )(order, x)


def main():
    gpu = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                       abstract_device=AbstractDevice(device_kind="NVIDIA H100", num_cores=132, platform="gpu"))
    order = jax.ShapeDtypeStruct((4,), jnp.int32)
    x = jax.ShapeDtypeStruct((4 * BLOCK, 64), jnp.bfloat16)
    with use_abstract_mesh(gpu):
        print(jax.jit(permute_blocks).trace(order, x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
