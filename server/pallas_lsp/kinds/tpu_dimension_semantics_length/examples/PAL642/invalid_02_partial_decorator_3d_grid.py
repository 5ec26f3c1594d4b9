# pallas-lsp example: invalid
# note: A 3-D grid (batch, rows, cols) with semantics for two axes, in a functools.partial decorator.
# raises: ValueError: Length of grid does not match length of dimension semantics. len\(grid\)=3, len\(dimension_semantics\)=2
# fix: Pad dimension_semantics with 1 "arbitrary" entry to the grid's 3 axes
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

B, M, N = 4, 256, 512
TILE = (None, 128, 256)


@functools.partial(
    pl.pallas_call,
    out_shape=jax.ShapeDtypeStruct((B, M, N), jnp.float32),
    grid=(B, M // 128, N // 256),
    in_specs=[pl.BlockSpec(TILE, lambda b, i, j: (b, i, j))],
    out_specs=pl.BlockSpec(TILE, lambda b, i, j: (b, i, j)),
    compiler_params=pltpu.CompilerParams(dimension_semantics=["parallel", "arbitrary"]),  # error
)
def square(x_ref, o_ref):
    o_ref[...] = x_ref[...] * x_ref[...]


def main():
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(square).trace(jax.ShapeDtypeStruct((B, M, N), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
