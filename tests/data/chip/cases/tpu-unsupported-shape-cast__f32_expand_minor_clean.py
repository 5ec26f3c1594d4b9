# case: family=tpu-unsupported-shape-cast chip=clean cpu=lowers interp=clean
# intent: the clean twin of dtype__expand_minor_bf16: the same outer broadcast on a float32 tile.
# grounded: Mosaic infer_vector_layout.cc ('Insertion of minor dim that is not a no-op only supported for 32-bit types') / libtpu 'unsupported shape cast'; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def outer_kernel(x_ref, o_ref):
    x = x_ref[...]
    col = jnp.expand_dims(x, -1)
    o_ref[...] = jnp.broadcast_to(col, o_ref.shape)


def launch(x):
    return pl.pallas_call(
        outer_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128, 8), jnp.float32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128) / 64.0,)


def reference(x):
    import numpy as np
    return np.broadcast_to(x[..., None], (16, 128, 8))


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
