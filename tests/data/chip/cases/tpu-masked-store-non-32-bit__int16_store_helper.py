# case: family=tpu-masked-store-non-32-bit chip=raises cpu=raises interp=clean
# intent: a helper clamps a (16, 256) int16 tile: it writes 100 wherever x > 100 with a masked pltpu.store.
# grounded: jax/_src/pallas/mosaic/lowering.py _masked_swap_lowering_rule ("masked swap with non-32-bit data")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def _clamp_into(ref, x, limit):
    pltpu.store(ref, jnp.full_like(x, limit), mask=x > limit)  # FAIL


def clamp_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x
    _clamp_into(o_ref, x, 100)


def launch(x):
    return pl.pallas_call(
        clamp_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 256), jnp.int16),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(16 * 256, dtype=jnp.int32).reshape(16, 256).astype(jnp.int16) % 300,)


def reference(x):
    import numpy as np
    return np.minimum(np.asarray(x), 100)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
