# pallas-lsp example: valid
# note: One precision for both operands (HIGHEST, and "highest" as a string) lowers for TPU in every release.
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def mm_kernel(x_ref, w_ref, o_ref):
    a = lax.dot_general(x_ref[...], w_ref[...], (((1,), (0,)), ((), ())),
                        precision=(lax.Precision.HIGHEST, lax.Precision.HIGHEST))
    o_ref[...] = a + jnp.matmul(x_ref[...], w_ref[...], precision="highest")


def matmul(x, w):
    return pl.pallas_call(mm_kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32))(x, w)


def main():
    x = jnp.ones((16, 128), jnp.float32)
    w = jnp.ones((128, 128), jnp.float32)
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(matmul).trace(x, w).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
