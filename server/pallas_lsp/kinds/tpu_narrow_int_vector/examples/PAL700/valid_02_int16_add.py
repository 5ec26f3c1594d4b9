# pallas-lsp example: valid
# note: 16-bit integer vectors add on the v5e (chip case cases/tpu-narrow-int-vector__int16_add.py ran clean).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def inc_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + jnp.int16(1)


def launch(x):
    return pl.pallas_call(inc_kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.int16))(x)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(jax.ShapeDtypeStruct((16, 128), jnp.int16)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
