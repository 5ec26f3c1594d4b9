# pallas-lsp example: valid
# note: A matrix-vector product (a rank-1 result) and the inner product written as jnp.sum(u * v): both lower for TPU.
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def mv_kernel(m_ref, v_ref, o_ref):
    y = jnp.dot(m_ref[...], v_ref[...])
    s = jnp.sum(v_ref[...] * v_ref[...])
    o_ref[...] = y[:, None] + s


def matvec(m, v):
    return pl.pallas_call(mv_kernel, out_shape=jax.ShapeDtypeStruct((8, 1), jnp.float32))(m, v)


def main():
    m = jnp.ones((8, 128), jnp.float32)
    v = jnp.ones((128,), jnp.float32)
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(matvec).trace(m, v).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
