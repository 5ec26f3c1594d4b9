# case: family=tpu-float16-vector chip=clean cpu=lowers interp=clean
# intent: the clean twin of copy_blocks and upcast_in_kernel: the same kernel on bfloat16 (the TPU's 16-bit float).
# grounded: bfloat16 vectors are native on TPU; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def widen_kernel(h_ref, o_ref):
    o_ref[...] = h_ref[...].astype(jnp.float32) * 2.0


def launch(h):
    return pl.pallas_call(
        widen_kernel,
        out_shape=jax.ShapeDtypeStruct(h.shape, jnp.float32),
        grid=(2,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        interpret=INTERPRET,
    )(h)


def inputs():
    return ((jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128) / 32.0).astype(jnp.bfloat16),)


def reference(h):
    return h.astype("float32") * 2.0


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
