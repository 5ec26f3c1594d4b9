# pallas-lsp example: invalid
# note: A bfloat16 1-D block of pl.Blocked(128): a power of 2, but bfloat16's 1-D tile is 256 (128 * (32 // 16)).
# raises: ValueError: The Pallas TPU lowering currently requires that rank 1 block shapes
# fix: Use a block of 256 elements
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def relu_kernel(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0)


def relu(x):
    spec = pl.BlockSpec((pl.Blocked(128),), lambda i: (i,))  # error
    return pl.pallas_call(relu_kernel, grid=(x.shape[0] // 128,), in_specs=[spec], out_specs=spec,
                          out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    x = jnp.zeros((8192,), jnp.bfloat16)
    with use_abstract_mesh(mesh):
        jax.jit(relu).trace(x).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
