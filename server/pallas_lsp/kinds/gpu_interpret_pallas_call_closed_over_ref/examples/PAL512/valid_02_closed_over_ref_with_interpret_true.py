# pallas-lsp example: valid
# note: With interpret=True a closed-over Ref without a memory space is discharged into an operand.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


@jax.jit
def shift(x):
    weights = jax.new_ref(jnp.ones(x.shape, x.dtype))

    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] + weights[...]

    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


if __name__ == "__main__":
    print(shift(jnp.zeros((128,), jnp.float32))[:4])
