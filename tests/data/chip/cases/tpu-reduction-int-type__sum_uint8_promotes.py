# case: family=tpu-reduction-int-type chip=raises cpu=raises interp=clean
# intent: row sums of a uint8 (8, 256) block with jnp.sum (jnp promotes uint8 to uint32 before reduce_sum).
# grounded: jax/_src/pallas/mosaic/lowering.py reduce_lowering_rule ("Reductions over unsigned integers not implemented.")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def rowsum_kernel(x_ref, o_ref):
    o_ref[...] = jnp.sum(x_ref[...], axis=1, keepdims=True).astype(jnp.int32)  # FAIL


def launch(x):
    return pl.pallas_call(
        rowsum_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 1), jnp.int32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return ((jnp.arange(8 * 256, dtype=jnp.int32).reshape(8, 256) % 251).astype(jnp.uint8),)


def reference(x):
    import numpy as np
    return np.asarray(x, np.int32).sum(axis=1, keepdims=True)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
