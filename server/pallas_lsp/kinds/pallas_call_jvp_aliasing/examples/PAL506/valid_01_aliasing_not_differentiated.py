# pallas-lsp example: valid
# note: The in-place update is differentiated nowhere: jax.jvp differentiates only the other launch.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def bump_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def bump(x):
    return pl.pallas_call(bump_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          input_output_aliases={0: 0}, interpret=True)(x)


def square(x):
    return pl.pallas_call(lambda x_ref, o_ref: o_ref.__setitem__(..., x_ref[...] ** 2),
                          out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


def main():
    x = jnp.zeros((128,), jnp.float32)
    print(bump(x)[:4])
    print(jax.jvp(lambda v: square(v).sum(), (x,), (jnp.ones_like(x),))[1])


if __name__ == "__main__":
    main()
