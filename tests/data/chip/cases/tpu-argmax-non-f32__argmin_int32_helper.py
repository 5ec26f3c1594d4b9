# case: family=tpu-argmax-non-f32 chip=raises cpu=raises interp=clean
# intent: index of the smallest int32 cost per row of an (8, 128) block, with jnp.argmin in a helper.
# grounded: jax/_src/pallas/mosaic/lowering.py _reduce_index_helper (0.10.2: "Only float32 is supported")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def _cheapest(costs):
    return jnp.argmin(costs, axis=1, keepdims=True)  # FAIL


def pick_kernel(c_ref, o_ref):
    o_ref[...] = _cheapest(c_ref[...]).astype(jnp.int32)


def launch(c):
    return pl.pallas_call(
        pick_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 1), jnp.int32),
        interpret=INTERPRET,
    )(c)


def inputs():
    return ((jnp.arange(8 * 128, dtype=jnp.int32).reshape(8, 128) * 73) % 1009,)


def reference(c):
    import numpy as np
    return np.argmin(np.asarray(c), axis=1)[:, None].astype(np.int32)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
