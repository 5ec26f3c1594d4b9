# pallas-lsp example: valid
# note: A strided view written whole with [...] is a strided store (it compiled on a TPU v5e).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def spread_kernel(x_ref, o_ref):
    o_ref[...] = jnp.zeros((4, 8, 128), jnp.int32)
    o_ref.at[pl.ds(0, 2, stride=2)][...] = x_ref[...]


def launch(x):
    return pl.pallas_call(
        spread_kernel,
        out_shape=jax.ShapeDtypeStruct((4, 8, 128), jnp.int32),
    )(x)


def inputs():
    return (jnp.arange(2 * 8 * 128, dtype=jnp.int32).reshape(2, 8, 128),)


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
