# pallas-lsp example: valid
# note: The same int8 matmul accumulated in int32 and converted after the dot (ran clean on a TPU v5e).
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def qmm_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.int32).astype(jnp.float32)


def qmm(a, b):
    return pl.pallas_call(qmm_kernel, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32))(a, b)


def main():
    a = jnp.ones((32, 256), jnp.int8)
    b = jnp.ones((256, 128), jnp.int8)
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(qmm).trace(a, b).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
