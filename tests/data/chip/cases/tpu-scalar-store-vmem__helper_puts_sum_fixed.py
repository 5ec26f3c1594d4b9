# case: family=tpu-scalar-store-vmem chip=clean cpu=lowers interp=clean
# intent: the fixed twin of helper_puts_sum: the helper stores a (1, 1) array into the (1, 1) window pl.ds(row, 1), pl.ds(col, 1).
# grounded: a vector store of shape (1, 1) into VMEM (_masked_swap_lowering_rule); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def _put(ref, row, col, value):
    ref[pl.ds(row, 1), pl.ds(col, 1)] = jnp.broadcast_to(value, (1, 1))  # DECOY


def total_kernel(x_ref, o_ref):
    o_ref[...] = jnp.zeros((8, 128), jnp.float32)
    _put(o_ref, 1, 3, jnp.sum(x_ref[...]))


def launch(x):
    return pl.pallas_call(
        total_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.cos(jnp.arange(16 * 256, dtype=jnp.float32).reshape(16, 256)),)


def reference(x):
    import numpy as np
    out = np.zeros((8, 128), np.float32)
    out[1, 3] = np.asarray(x).sum()
    return out


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
