# pallas-lsp example: valid
# note: On a pinned CPU host, a compiled kernel lowered for TPU (not run) is fine.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

jax.config.update("jax_platforms", "cpu")


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def double(x):
    return pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def main():
    x = jnp.ones((8, 128), jnp.float32)
    print(jax.jit(double).trace(x).lower(lowering_platforms=("tpu",)).as_text()[:60])


if __name__ == "__main__":
    main()
