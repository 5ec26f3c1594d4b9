# case: family=tpu-argmax-non-f32 chip=raises cpu=raises interp=clean
# intent: lax.argmax over the lanes of bf16 (16, 256) logits with index_dtype=int32.
# grounded: jax/_src/pallas/mosaic/lowering.py _reduce_index_helper (0.10.2: "Only float32 is supported")
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

INTERPRET = False


def top1_kernel(x_ref, o_ref):
    idx = lax.argmax(x_ref[...], 1, jnp.int32)  # FAIL
    o_ref[...] = idx[:, None]


def launch(x):
    return pl.pallas_call(
        top1_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 1), jnp.int32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return ((jnp.sin(jnp.arange(16 * 256, dtype=jnp.float32).reshape(16, 256) * 0.61) * 8.0).astype(jnp.bfloat16),)


def reference(x):
    import numpy as np
    return np.argmax(np.asarray(x, np.float32), axis=1)[:, None].astype(np.int32)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
