# pallas-lsp example: invalid
# note: jax.jit through functools.partial makes `block` static but not `n_blocks`, the grid's second axis; lowered for CUDA (Triton).
# raises: NotImplementedError: dynamic grid bounds not supported in the Triton backend
# fix: Make `n_blocks` static: add it to static_argnames of jax.jit
# oracle: lower-cuda
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def negate_kernel(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


@functools.partial(jax.jit, static_argnames=("block",))
def negate_prefix(x, n_blocks, block):
    return pl.pallas_call(
        negate_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 16, n_blocks),  # error
        in_specs=[pl.BlockSpec((16, block), lambda i, j: (i, j))],
        out_specs=pl.BlockSpec((16, block), lambda i, j: (i, j)),
    )(x)


def main():
    gpu = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                       abstract_device=AbstractDevice(device_kind="NVIDIA H100", num_cores=132, platform="gpu"))
    x = jax.ShapeDtypeStruct((32, 512), jnp.float32)
    with use_abstract_mesh(gpu):
        print(negate_prefix.trace(x, 2, block=128).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
