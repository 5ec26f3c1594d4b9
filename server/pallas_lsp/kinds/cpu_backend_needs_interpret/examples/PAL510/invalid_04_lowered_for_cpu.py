# pallas-lsp example: invalid
# note: Lowering a compiled pallas_call for the cpu platform (lowering for tpu or cuda would be fine).
# raises: ValueError: Only interpret mode is supported on CPU backend\.
# fix: Interpret it where it runs on a CPU (interpret=True)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def double(x):
    return pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  # error


def main():
    x = jnp.ones((8, 128), jnp.float32)
    print(jax.jit(double).trace(x).lower(lowering_platforms=("cpu",)).as_text()[:60])


if __name__ == "__main__":
    main()
