# pallas-lsp example: valid
# note: The same kernel with an exponential, which Mosaic TPU lowers.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

ROWS, COLS = 16, 128


def prefix_kernel(x_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...])


def prefix(x):
    return pl.pallas_call(prefix_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(prefix).trace(jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
