# case: family=tpu-reduction-int-type chip=raises cpu=raises interp=clean
# intent: column minimum of an int16 (16, 128) block with the Array method x.min(axis=0, keepdims=True).
# grounded: jax/_src/pallas/mosaic/lowering.py reduce_lowering_rule ("Reductions over int16 not implemented.")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def colmin_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x.min(axis=0, keepdims=True).astype(jnp.int32)  # FAIL


def launch(x):
    return pl.pallas_call(
        colmin_kernel,
        out_shape=jax.ShapeDtypeStruct((1, 128), jnp.int32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return ((jnp.arange(16 * 128, dtype=jnp.int32).reshape(16, 128) * 31 % 1000 - 500).astype(jnp.int16),)


def reference(x):
    import numpy as np
    return np.asarray(x, np.int32).min(axis=0, keepdims=True)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
