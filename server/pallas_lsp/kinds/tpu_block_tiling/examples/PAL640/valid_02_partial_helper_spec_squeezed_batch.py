# pallas-lsp example: valid
# note: The squeezed dim is the leading one; the last two block dims (8, 256) are the array's own.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

HEADS, ROWS, WIDTH = 4, 8, 256


def one_head(rows, width):
    return pl.BlockSpec((None, rows, width), lambda h: (h, 0, 0))


@functools.partial(
    pl.pallas_call,
    out_shape=jax.ShapeDtypeStruct((HEADS, ROWS, WIDTH), jnp.float32),
    grid=(HEADS,),
    in_specs=[one_head(ROWS, WIDTH)],
    out_specs=one_head(ROWS, WIDTH),
)
def scale_heads(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(scale_heads).trace(
            jax.ShapeDtypeStruct((HEADS, ROWS, WIDTH), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
