# pallas-lsp example: invalid
# note: Two float8_e5m2 tiles added (chip case cases/tpu-fp8-elementwise__e5m2_add.py).
# raises: MosaicError: failed to legalize operation 'arith.addf'
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def fp8_add_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = a_ref[...] + b_ref[...]  # error


def launch(a, b):
    return pl.pallas_call(fp8_add_kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float8_e5m2))(a, b)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(jax.ShapeDtypeStruct((16, 128), jnp.float8_e5m2), jax.ShapeDtypeStruct((16, 128), jnp.float8_e5m2)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
