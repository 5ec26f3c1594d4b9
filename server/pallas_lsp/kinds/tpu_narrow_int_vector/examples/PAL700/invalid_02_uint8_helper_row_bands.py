# pallas-lsp example: invalid
# note: A helper adds a Python int to uint8 row bands; the finding sits on the block the kernel adds in (chip case cases/tpu-narrow-int-vector__uint8_add_helper.py).
# raises: MosaicError: Only vector<i16> and vector<i32> are supported, but got 'i8'
# oracle: chip
# fix: Add in int32 and cast the sum back to uint8
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

ROWS, COLS, TR = 64, 256, 32


def brighten(v):
    return v + 3


def bright_kernel(img_ref, o_ref):
    o_ref[...] = brighten(img_ref[...])


def launch(img):
    return pl.pallas_call(
        bright_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.uint8),
        grid=(ROWS // TR,),
        in_specs=[pl.BlockSpec((TR, COLS), lambda i: (i, 0))],  # error
        out_specs=pl.BlockSpec((TR, COLS), lambda i: (i, 0)),
    )(img)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(jax.ShapeDtypeStruct((ROWS, COLS), jnp.uint8)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
