# pallas-lsp example: valid
# note: A bfloat16 1-D block of 256, the smallest power of 2 its tile allows.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def relu_kernel(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0)


def relu(x):
    spec = pl.BlockSpec((pl.Blocked(256),), lambda i: (i,))
    return pl.pallas_call(relu_kernel, grid=(x.shape[0] // 256,), in_specs=[spec], out_specs=spec,
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
