# pallas-lsp example: invalid
# note: The index of the smallest int32 cost per row, with the Array method x.argmin.
# raises: NotImplementedError: Unsupported combination of input dtype \(int32\) and index_dtype \(int32\)
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def pick_kernel(c_ref, o_ref):
    c = c_ref[...]
    o_ref[...] = c.argmin(axis=1, keepdims=True).astype(jnp.int32)  # error


def pick(c):
    return pl.pallas_call(pick_kernel, out_shape=jax.ShapeDtypeStruct((8, 1), jnp.int32))(c)


def main():
    c = jnp.ones((8, 128), jnp.int32)
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(pick).trace(c).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
