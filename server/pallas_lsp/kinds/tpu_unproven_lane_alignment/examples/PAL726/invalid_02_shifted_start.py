# pallas-lsp example: invalid
# note: The start i << 7 is a multiple of 128 that Mosaic does not follow through a shift.
# raises: MosaicError: .*cannot statically prove that index in dimension 1 is a multiple of 128
# fix: State the lane start's alignment with `pl.multiple_of(start, 128)`
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def shifted_kernel(x_ref, o_ref):
    start = pl.program_id(0) << 7
    o_ref[...] = x_ref[:, pl.ds(start, 128)]  # error


def launch(x):
    return pl.pallas_call(
        shifted_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 512), jnp.float32),
        grid=(4,),
        in_specs=[pl.BlockSpec((8, 512), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (0, i)),
    )(x)


def inputs():
    return (jnp.arange(8 * 512, dtype=jnp.float32).reshape(8, 512),)



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
