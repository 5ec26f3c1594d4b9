# case: family=tpu-masked-store-non-32-bit chip=clean cpu=lowers interp=clean
# intent: the clean twin of int16_store_helper on int32 data: the masked pltpu.store writes 32-bit values.
# grounded: _masked_swap_lowering_rule takes masks on 4-byte data; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def _clamp_into(ref, x, limit):
    pltpu.store(ref, jnp.full_like(x, limit), mask=x > limit)  # DECOY


def clamp_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x
    _clamp_into(o_ref, x, 100)


def launch(x):
    return pl.pallas_call(
        clamp_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 256), jnp.int32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(16 * 256, dtype=jnp.int32).reshape(16, 256) % 300,)


def reference(x):
    import numpy as np
    return np.minimum(np.asarray(x), 100)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
