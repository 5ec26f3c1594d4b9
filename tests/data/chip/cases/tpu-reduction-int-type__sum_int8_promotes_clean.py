# case: family=tpu-reduction-int-type chip=clean cpu=lowers interp=clean
# intent: row sums of an int8 (8, 256) block with jnp.sum: jnp promotes int8 to int32, which the lowering reduces (clean twin).
# grounded: reduce_lowering_rule takes int32
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def rowsum_kernel(x_ref, o_ref):
    o_ref[...] = jnp.sum(x_ref[...], axis=1, keepdims=True)  # DECOY


def launch(x):
    return pl.pallas_call(
        rowsum_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 1), jnp.int32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return ((jnp.arange(8 * 256, dtype=jnp.int32).reshape(8, 256) % 251 - 125).astype(jnp.int8),)


def reference(x):
    import numpy as np
    return np.asarray(x, np.int32).sum(axis=1, keepdims=True)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
