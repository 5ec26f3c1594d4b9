# pallas-lsp example: invalid
# note: jax.jvp of an in-place update (input_output_aliases) launched with interpret=True.
# raises: NotImplementedError: JVP with aliasing not supported\.
# fix: Drop input_output_aliases (the output gets its own buffer)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def bump_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def bump(x):
    return pl.pallas_call(bump_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          input_output_aliases={0: 0}, interpret=True)(x)  # error


def main():
    x = jnp.zeros((128,), jnp.float32)
    print(jax.jvp(bump, (x,), (jnp.ones_like(x),))[1][:4])


if __name__ == "__main__":
    main()
