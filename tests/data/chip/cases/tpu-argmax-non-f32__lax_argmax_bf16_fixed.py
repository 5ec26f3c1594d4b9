# case: family=tpu-argmax-non-f32 chip=wrong-result cpu=lowers interp=clean
# intent: the fixed program of tpu-argmax-non-f32__lax_argmax_bf16: the bf16 logits cast to float32 (exact) before lax.argmax.
# grounded: fix of PAL716 (float32 input to reduce_index)
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

INTERPRET = False


def top1_kernel(x_ref, o_ref):
    idx = lax.argmax(x_ref[...].astype(jnp.float32), 1, jnp.int32)
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
