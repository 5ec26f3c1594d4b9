# pallas-lsp example: invalid
# note: One element of an int32 VMEM scratch buffer is written with acc_ref[2, 5] = pl.program_id(0).
# raises: ValueError: Cannot store scalars to VMEM
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def step_kernel(x_ref, o_ref, acc_ref):
    acc_ref[...] = x_ref[...]
    acc_ref[2, 5] = pl.program_id(0)  # error
    o_ref[...] = acc_ref[...]


def launch(x):
    return pl.pallas_call(
        step_kernel,
        out_shape=jax.ShapeDtypeStruct((24, 128), jnp.int32),
        grid=(3,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.int32)],
    )(x)


def inputs():
    return (jnp.full((24, 128), -1, jnp.int32),)



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
