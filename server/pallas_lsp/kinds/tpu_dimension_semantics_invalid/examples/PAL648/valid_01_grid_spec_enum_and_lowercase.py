# pallas-lsp example: valid
# note: The same launch with the pltpu enum for the parallel axis and 'arbitrary' in lowercase.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def colsum_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += x_ref[...]


def launch(x):
    return pl.pallas_call(
        colsum_kernel,
        out_shape=jax.ShapeDtypeStruct((8, x.shape[1]), x.dtype),
        grid_spec=pl.GridSpec(
            grid=(x.shape[1] // 128, x.shape[0] // 8),
            in_specs=[pl.BlockSpec((8, 128), lambda j, k: (k, j))],
            out_specs=pl.BlockSpec((8, 128), lambda j, k: (0, j)),
        ),
        compiler_params=pltpu.CompilerParams(dimension_semantics=(pltpu.GridDimensionSemantics.PARALLEL, "arbitrary")),
    )(x)


ARGS = (jax.ShapeDtypeStruct((64, 256), jnp.float32),)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(*ARGS).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
