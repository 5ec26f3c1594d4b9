# case: family=tpu-matmul-unsigned chip=raises cpu=lowers interp=clean
# intent: tpu-matmul-unsigned__uint8_dot_general_helper with the pixels and weights cast to int16 (signed 16-bit operands, int32 result; the chip decides).
# grounded: probe of another signed spelling (int16 x int16)
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

INTERPRET = False


def _blend(img, w):
    return lax.dot_general(img.astype(jnp.int16), w.astype(jnp.int16), (((1,), (0,)), ((), ())),
                           preferred_element_type=jnp.int32)


def blend_kernel(img_ref, w_ref, o_ref):
    o_ref[...] = _blend(img_ref[...], w_ref[...])


def launch(img, w):
    return pl.pallas_call(
        blend_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.int32),
        interpret=INTERPRET,
    )(img, w)


def inputs():
    img = (jnp.arange(16 * 128, dtype=jnp.int32).reshape(16, 128) * 7 % 256).astype(jnp.uint8)
    w = (jnp.arange(128 * 128, dtype=jnp.int32).reshape(128, 128) % 5).astype(jnp.uint8)
    return (img, w)


def reference(img, w):
    import numpy as np
    return np.asarray(img, np.int32) @ np.asarray(w, np.int32)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
