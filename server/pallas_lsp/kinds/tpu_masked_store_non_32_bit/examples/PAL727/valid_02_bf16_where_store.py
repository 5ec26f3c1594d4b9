# pallas-lsp example: valid
# note: The bf16 mask becomes jnp.where(mask, x, o_ref[...]) stored whole.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def positive_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = jnp.zeros_like(x)
    o_ref[...] = jnp.where(x > 0, x, o_ref[...])


def launch(x):
    return pl.pallas_call(
        positive_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    )(x)


def inputs():
    return (jnp.sin(jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128)).astype(jnp.bfloat16),)



def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    args = inputs()
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(*args).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
