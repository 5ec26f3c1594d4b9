# case: family=tpu-unsupported-shape-cast chip=clean cpu=lowers interp=clean
# intent: the fixed program of shape_cast__expand_minor_bf16: the bfloat16 tile widened to float32 before expand_dims, the broadcast cast back to bfloat16 (exact).
# grounded: Mosaic infer_vector_layout.cc ('Insertion of minor dim that is not a no-op only supported for 32-bit types') / libtpu 'unsupported shape cast'; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def outer_kernel(x_ref, o_ref):
    x = x_ref[...]
    col = jnp.expand_dims(x.astype(jnp.float32), -1)
    o_ref[...] = jnp.broadcast_to(col, o_ref.shape).astype(o_ref.dtype)


def launch(x):
    return pl.pallas_call(
        outer_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128, 8), jnp.bfloat16),
        interpret=INTERPRET,
    )(x)


def inputs():
    return ((jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128) / 64.0).astype(jnp.bfloat16),)


def reference(x):
    import numpy as np
    return np.broadcast_to(x.astype(np.float32)[..., None], (16, 128, 8))


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
