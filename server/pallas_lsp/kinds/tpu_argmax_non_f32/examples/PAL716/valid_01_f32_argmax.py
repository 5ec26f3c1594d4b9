# pallas-lsp example: valid
# note: argmax over float32 logits lowers for TPU in every release.
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def top1_kernel(x_ref, o_ref):
    o_ref[...] = jnp.argmax(x_ref[...], axis=-1, keepdims=True).astype(jnp.int32)


def top1(x):
    return pl.pallas_call(top1_kernel, out_shape=jax.ShapeDtypeStruct((8, 1), jnp.int32))(x)


def main():
    x = jnp.ones((8, 256), jnp.float32)
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(top1).trace(x).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
