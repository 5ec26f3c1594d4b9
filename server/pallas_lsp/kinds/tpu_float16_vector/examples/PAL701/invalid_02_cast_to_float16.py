# pallas-lsp example: invalid
# note: A float32 result cast to float16 in the kernel (chip case cases/tpu-float16-vector__store_only.py).
# raises: MosaicError: failed to legalize operation 'tpu.pack_subelements'
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def halve_kernel(x_ref, o_ref):
    o_ref[...] = (x_ref[...] * 0.5).astype(jnp.float16)  # error


def launch(x):
    return pl.pallas_call(halve_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float16))(x)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
