# pallas-lsp example: invalid
# note: With x64 on, a helper casts float32 scores to int64 inside the kernel (chip case cases/tpu-64-bit-types__astype_int64_helper.py).
# raises: NotImplementedError: 64-bit types are not supported
# fix: Cast to int32 instead of int64 (32-bit precision)
import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh  # noqa: E402


def bucket(v):
    return jnp.floor(v * 4.0).astype(jnp.int64)  # error


def bucket_kernel(x_ref, o_ref):
    o_ref[...] = bucket(x_ref[...]).astype(jnp.int32)


def launch(x):
    return pl.pallas_call(bucket_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.int32))(x)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(jax.ShapeDtypeStruct((16, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
