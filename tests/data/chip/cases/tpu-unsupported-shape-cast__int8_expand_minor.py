# case: family=tpu-unsupported-shape-cast chip=raises cpu=lowers interp=clean
# intent: jnp.expand_dims(x, -1) of a (32, 128) int8 tile, broadcast to (32, 128, 2) (no int8 arithmetic).
# grounded: Mosaic infer_vector_layout.cc ('Insertion of minor dim that is not a no-op only supported for 32-bit types') / libtpu 'unsupported shape cast'; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def outer_kernel(q_ref, o_ref):
    col = jnp.expand_dims(q_ref[...], -1)  # FAIL
    o_ref[...] = jnp.broadcast_to(col, o_ref.shape)


def launch(q):
    return pl.pallas_call(
        outer_kernel,
        out_shape=jax.ShapeDtypeStruct((32, 128, 2), jnp.int8),
        interpret=INTERPRET,
    )(q)


def inputs():
    return ((jnp.arange(32 * 128, dtype=jnp.int32).reshape(32, 128) % 100).astype(jnp.int8),)


def reference(q):
    import numpy as np
    return np.broadcast_to(np.asarray(q)[..., None], (32, 128, 2))


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
