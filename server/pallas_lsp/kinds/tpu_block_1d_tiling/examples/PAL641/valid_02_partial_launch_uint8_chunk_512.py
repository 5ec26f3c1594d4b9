# pallas-lsp example: valid
# note: A 1-D chunk of 512: a power of 2 of at least the float32 tile (128) and the uint8 tile (128 * (32 // 8)), launched through functools.partial.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

LENGTH, CHUNK = 2560, 512


def threshold_kernel(x_ref, o_ref):
    o_ref[...] = (x_ref[...] > 0.5).astype(jnp.uint8)


threshold = functools.partial(
    pl.pallas_call,
    threshold_kernel,
    grid=(LENGTH // CHUNK,),
    in_specs=[pl.BlockSpec((CHUNK,), lambda i: (i,))],
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
