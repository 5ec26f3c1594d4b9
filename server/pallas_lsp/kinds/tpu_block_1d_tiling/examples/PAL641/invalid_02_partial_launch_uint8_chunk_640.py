# pallas-lsp example: invalid
# note: A 1-D chunk of 640 (it divides 2560, but is neither a power of 2 nor a multiple of 1024) for the float32 input, launched through functools.partial.
# raises: ValueError: The Pallas TPU lowering currently requires that rank 1 block shapes
# fix: Use a block of 2560 elements
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

LENGTH, CHUNK = 2560, 640


def threshold_kernel(x_ref, o_ref):
    o_ref[...] = (x_ref[...] > 0.5).astype(jnp.uint8)


threshold = functools.partial(
    pl.pallas_call,
    threshold_kernel,
    grid=(LENGTH // CHUNK,),
    in_specs=[pl.BlockSpec((CHUNK,), lambda i: (i,))],  # error
    out_specs=pl.BlockSpec((CHUNK,), lambda i: (i,)),
    out_shape=jax.ShapeDtypeStruct((LENGTH,), jnp.uint8),
)


def binarize(x):
    return threshold()(x)


def main():
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(binarize).trace(jax.ShapeDtypeStruct((LENGTH,), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
