# case: family=tpu-int-indexing chip=raises cpu=raises interp=clean
# intent: write a tile into rows 0, 2, 4, 6 of an int32 output with an index vector (o_ref[jnp.arange(4) * 2] = x).
# grounded: jax/_src/pallas/mosaic/lowering.py _canonicalize_transforms_to_indexer ("Cannot do int indexing on TPU")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def spread_kernel(x_ref, o_ref):
    o_ref[...] = jnp.zeros((8, 128), jnp.int32)
    o_ref[jnp.arange(4) * 2] = x_ref[...]  # FAIL


def launch(x):
    return pl.pallas_call(
        spread_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.int32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(4 * 128, dtype=jnp.int32).reshape(4, 128),)


def reference(x):
    import numpy as np
    out = np.zeros((8, 128), np.int32)
    out[0::2] = x
    return out


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
