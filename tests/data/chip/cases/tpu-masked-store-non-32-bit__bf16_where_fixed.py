# case: family=tpu-masked-store-non-32-bit chip=clean cpu=lowers interp=clean
# intent: the fixed twin of the shared masked_store_bf16: the bf16 masked store becomes o_ref[...] = jnp.where(mask, x, o_ref[...]).
# grounded: an unmasked bf16 store of a select; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def positive_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = jnp.zeros_like(x)
    o_ref[...] = jnp.where(x > 0, x, o_ref[...])  # DECOY


def launch(x):
    return pl.pallas_call(
        positive_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.sin(jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128)).astype(jnp.bfloat16),)


def reference(x):
    import numpy as np
    xf = x.astype(np.float32)
    return np.where(xf > 0, xf, 0.0)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
