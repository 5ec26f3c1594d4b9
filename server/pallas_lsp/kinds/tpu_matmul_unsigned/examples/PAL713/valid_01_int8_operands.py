# pallas-lsp example: valid
# note: The same blocks cast to int8 (signed) before the dot lower for TPU.
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def mix_kernel(a_ref, b_ref, o_ref):
    a = a_ref[...].astype(jnp.int8)
    b = b_ref[...].astype(jnp.int8)
    o_ref[...] = jnp.dot(a, b, preferred_element_type=jnp.int32)


def mix(a, b):
    return pl.pallas_call(mix_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.int32))(a, b)


def main():
    a = jnp.ones((8, 128), jnp.int32)
    b = jnp.ones((128, 128), jnp.int32)
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(mix).trace(a, b).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
