# pallas-lsp example: invalid
# note: Rows are written through an index array, o_ref[jnp.arange(4) * 2] = x.
# raises: ValueError: Cannot do int indexing on TPU
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def spread_kernel(x_ref, o_ref):
    o_ref[...] = jnp.zeros((8, 128), jnp.int32)
    o_ref[jnp.arange(4) * 2] = x_ref[...]  # error


def launch(x):
    return pl.pallas_call(
        spread_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.int32),
    )(x)


def inputs():
    return (jnp.arange(4 * 128, dtype=jnp.int32).reshape(4, 128),)



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
