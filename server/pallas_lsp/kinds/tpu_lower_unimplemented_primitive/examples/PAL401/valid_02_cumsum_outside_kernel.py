# pallas-lsp example: valid
# note: The running sum taken outside the kernel, on the array the kernel returns.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

ROWS, COLS = 16, 128


def prefix_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def prefix(x):
    return jnp.cumsum(pl.pallas_call(prefix_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x), axis=1)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(prefix).trace(jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
