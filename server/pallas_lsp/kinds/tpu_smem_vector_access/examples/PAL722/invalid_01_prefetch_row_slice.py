# pallas-lsp example: invalid
# note: A row w_ref[i, :] of the scalar-prefetch table (SMEM) is read as a vector.
# raises: ValueError: Can only load scalars from SMEM
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def weighted_kernel(w_ref, x_ref, o_ref):
    i = pl.program_id(0)
    row = w_ref[i, :]  # error
    o_ref[...] = x_ref[...] * jnp.sum(row)


def launch(w, x):
    return pl.pallas_call(
        weighted_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.int32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(2,),
            in_specs=[pl.BlockSpec((8, 128), lambda i, w: (i, 0))],
            out_specs=pl.BlockSpec((8, 128), lambda i, w: (i, 0)),
        ),
    )(w, x)


def inputs():
    return (jnp.arange(8, dtype=jnp.int32).reshape(2, 4), jnp.ones((16, 128), jnp.int32))



def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    args = inputs()
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(*args).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
