# pallas-lsp example: valid
# note: The same launch with a grid of one step: the block is a window the pipeline moves.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

ROWS, COLS = 32, 128


@functools.partial(
    pl.pallas_call,
    out_shape=jax.ShapeDtypeStruct((8, COLS), jnp.int32),
    grid=(1,),
    in_specs=[pl.BlockSpec((8, COLS), lambda i: (0, 0))],
    out_specs=pl.BlockSpec((8, COLS), lambda i: (0, 0)),
)
def first_rows(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1



def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(first_rows).trace(jax.ShapeDtypeStruct((ROWS, COLS), jnp.int32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
