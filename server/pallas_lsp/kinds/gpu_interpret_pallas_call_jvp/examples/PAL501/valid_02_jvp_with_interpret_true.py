# pallas-lsp example: valid
# note: The same directional derivative with interpret=True: the generic interpreter's pallas_call has a JVP rule that runs.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def cube_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x * x * x


def cube(x):
    return pl.pallas_call(cube_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


def main():
    x = jnp.full((256,), 2.0, jnp.float32)
    print(jax.jvp(lambda v: cube(v).sum(), (x,), (jnp.ones_like(x),))[1])


if __name__ == "__main__":
    main()
