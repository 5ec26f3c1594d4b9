# pallas-lsp example: valid
# note: A Ref in pl.ANY (a neutral memory space) is accepted with interpret=True.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


@jax.jit
def bump(x):
    acc = jax.new_ref(x, memory_space=pl.ANY)

    def kernel(o_ref):
        o_ref[...] = acc[...] + 1.0

    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)()


if __name__ == "__main__":
    print(bump(jnp.ones((8, 128), jnp.float32))[0, :4])
