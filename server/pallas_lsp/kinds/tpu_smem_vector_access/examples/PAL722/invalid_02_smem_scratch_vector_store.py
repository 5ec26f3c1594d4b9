# pallas-lsp example: invalid
# note: Column sums are stored whole into pltpu.SMEM((128,), jnp.float32) scratch.
# raises: ValueError: Can only store scalars to SMEM
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def colsum_kernel(x_ref, o_ref, sums_ref):
    sums_ref[...] = jnp.sum(x_ref[...], axis=0)  # error
    o_ref[...] = x_ref[...] + sums_ref[0]


def launch(x):
    return pl.pallas_call(
        colsum_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        scratch_shapes=[pltpu.SMEM((128,), jnp.float32)],
    )(x)


def inputs():
    return (jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 1024.0,)



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
