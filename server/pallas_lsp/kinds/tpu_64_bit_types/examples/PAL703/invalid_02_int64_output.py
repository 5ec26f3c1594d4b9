# pallas-lsp example: invalid
# note: With x64 on, an int64 counter array in and out of the kernel (chip case cases/tpu-64-bit-types__int64_counter.py).
# raises: JaxRuntimeError: While rewriting computation to not contain X\{64\|128\} element types
# oracle: chip
import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh  # noqa: E402


def bump_kernel(c_ref, o_ref):
    o_ref[...] = c_ref[...] + 1


def launch(c):
    return pl.pallas_call(
        bump_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.int64),  # error
    )(c)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(jax.ShapeDtypeStruct((8, 128), jnp.int64)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
