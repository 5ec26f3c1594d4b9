# pallas-lsp example: invalid
# note: A helper reads the odd lanes of a (2, 8, 256) int32 tile: a strided read from a Ref whose last dim is not 128, which Mosaic in libtpu refuses.
# raises: MosaicError: .*The last dim size is not 128 in original base memref
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def _odd_lanes(ref):
    return ref[:, :, pl.ds(1, 128, stride=2)]  # error


def odd_kernel(x_ref, o_ref):
    o_ref[...] = _odd_lanes(x_ref) + 7


def launch(x):
    return pl.pallas_call(
        odd_kernel,
        out_shape=jax.ShapeDtypeStruct((2, 8, 128), jnp.int32),
    )(x)


def inputs():
    return (jnp.arange(2 * 8 * 256, dtype=jnp.int32).reshape(2, 8, 256),)



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
