# pallas-lsp example: valid
# note: The same 192-element whole array in interpret mode: no Triton lowering asks for power-of-2 sizes.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


@functools.partial(pl.pallas_call, out_shape=jax.ShapeDtypeStruct((3, 64), jnp.float32), interpret=True)
def softplus(x_ref, o_ref):
    o_ref[...] = jnp.log1p(jnp.exp(x_ref[...]))


def main():
    print(softplus(jnp.zeros((3, 64), jnp.float32))[0, :2])


if __name__ == "__main__":
    main()
