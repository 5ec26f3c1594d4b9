# pallas-lsp example: valid
# note: A unit-stride view indexed again.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def low_rows_kernel(x_ref, o_ref):
    low = x_ref.at[pl.ds(8, 8)]
    o_ref[...] = low[0:4, :] - 1.0


def launch(x):
    return pl.pallas_call(
        low_rows_kernel,
        out_shape=jax.ShapeDtypeStruct((4, 256), jnp.float32),
    )(x)


def inputs():
    return (jnp.arange(16 * 256, dtype=jnp.float32).reshape(16, 256),)



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
