# pallas-lsp example: invalid
# note: Windows at lane j * 32 in a fori_loop; only Mosaic in libtpu refuses it.
# raises: MosaicError: .*cannot statically prove that index in dimension 1 is a multiple of 128
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def window_sum_kernel(x_ref, o_ref):
    def body(j, acc):
        return acc + x_ref[:, pl.ds(j * 32, 128)]  # error

    o_ref[...] = jax.lax.fori_loop(0, 4, body, jnp.zeros((8, 128), jnp.float32))


def launch(x):
    return pl.pallas_call(
        window_sum_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
    )(x)


def inputs():
    return (jnp.arange(8 * 256, dtype=jnp.float32).reshape(8, 256) / 256.0,)



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
