# pallas-lsp example: valid
# note: jnp.sum of int8 sums in int32 (jnp promotes small integers), and a max over int32: both lower for TPU.
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def stats_kernel(x_ref, s_ref, m_ref):
    s_ref[...] = jnp.sum(x_ref[...], axis=1, keepdims=True)
    m_ref[...] = jnp.max(x_ref[...].astype(jnp.int32), axis=1, keepdims=True)


def stats(x):
    return pl.pallas_call(stats_kernel, out_shape=(jax.ShapeDtypeStruct((8, 1), jnp.int32),
                                                   jax.ShapeDtypeStruct((8, 1), jnp.int32)))(x)


def main():
    x = jnp.ones((8, 256), jnp.int8)
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(stats).trace(x).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
