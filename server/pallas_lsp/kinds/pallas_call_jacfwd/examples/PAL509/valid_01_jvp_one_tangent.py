# pallas-lsp example: valid
# note: The same derivative with jax.jvp and one tangent: no vmap asks for an unbatched primal.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def exp_kernel(x_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...])


def total(scale, x):
    y = pl.pallas_call(exp_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x * scale)
    return y.sum()


def main():
    x = jnp.ones((8, 128), jnp.float32)
    print(jax.jvp(lambda s: total(s, x), (0.5,), (1.0,))[1])


if __name__ == "__main__":
    main()
