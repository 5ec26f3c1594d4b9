# pallas-lsp example: valid
# note: The helper writes a (1, 1) window with pl.ds(row, 1), pl.ds(col, 1).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def _put(ref, row, col, value):
    ref[pl.ds(row, 1), pl.ds(col, 1)] = jnp.broadcast_to(value, (1, 1))


def total_kernel(x_ref, o_ref):
    o_ref[...] = jnp.zeros((8, 128), jnp.float32)
    _put(o_ref, 1, 3, jnp.sum(x_ref[...]))


def launch(x):
    return pl.pallas_call(
        total_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
    )(x)


def inputs():
    return (jnp.cos(jnp.arange(16 * 256, dtype=jnp.float32).reshape(16, 256)),)



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
