# pallas-lsp example: invalid
# note: A squeezed second-to-last dim counts as 1: 1 is neither a multiple of 8 nor the array's 4 rows.
# raises: ValueError: The Pallas TPU lowering currently requires that the last two dimensions of your block shape are divisible by 8 and 128
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

HEADS, WIDTH = 4, 256


def one_row(width):
    return pl.BlockSpec((None, width), lambda h: (h, 0))


@functools.partial(
    pl.pallas_call,
    out_shape=jax.ShapeDtypeStruct((HEADS, WIDTH), jnp.float32),
    grid=(HEADS,),
    in_specs=[one_row(WIDTH)],  # error
    out_specs=one_row(WIDTH),
)
def scale_rows(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(scale_rows).trace(jax.ShapeDtypeStruct((HEADS, WIDTH), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
