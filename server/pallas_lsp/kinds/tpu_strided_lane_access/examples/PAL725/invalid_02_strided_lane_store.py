# pallas-lsp example: invalid
# note: Even lanes of a 128-lane output are written with stride 2; Mosaic in libtpu refuses it.
# raises: MosaicError: .*Stride on last dim is not 1
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def interleave_kernel(x_ref, o_ref):
    o_ref[...] = jnp.zeros((8, 128), jnp.float32)
    o_ref[:, pl.ds(0, 64, stride=2)] = x_ref[...]  # error


def launch(x):
    return pl.pallas_call(
        interleave_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
    )(x)


def inputs():
    return (jnp.arange(8 * 64, dtype=jnp.float32).reshape(8, 64),)


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
