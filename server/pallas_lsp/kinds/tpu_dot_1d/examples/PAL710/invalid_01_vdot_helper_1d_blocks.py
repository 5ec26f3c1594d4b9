# pallas-lsp example: invalid
# note: A helper takes the inner product of two whole 1-D f32 blocks with `@`: a rank-0 dot result.
# raises: AssertionError: ^$
# fix: Write the inner product as jnp.sum(a * b) (a vector reduction the TPU lowers; the summation order, and so the last bits, may differ)
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def _similarity(u, v):
    return u @ v  # error


def sim_kernel(u_ref, v_ref, o_ref):
    o_ref[...] = jnp.broadcast_to(_similarity(u_ref[...], v_ref[...]), o_ref.shape)


def similarity(u, v):
    return pl.pallas_call(sim_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(u, v)


def main():
    u = jnp.ones((256,), jnp.float32)
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(similarity).trace(u, u).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
