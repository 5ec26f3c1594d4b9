# pallas-lsp example: valid
# note: The fix: the int8 operands added in int32 and the sum cast back (chip case cases/tpu-narrow-int-vector__int8_add_fixed.py ran clean).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = (x_ref[...].astype(jnp.int32) + y_ref[...].astype(jnp.int32)).astype(jnp.int8)


def launch(x, y):
    return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(jax.ShapeDtypeStruct((32, 128), jnp.int8), jax.ShapeDtypeStruct((32, 128), jnp.int8)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
