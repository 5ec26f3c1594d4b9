# pallas-lsp example: invalid
# note: Three outputs in out_shape, two specs in out_specs.
# raises: ValueError: Pytree for .out_specs. and .out_shape. do not match
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def split_kernel(x_ref, a_ref, b_ref, c_ref):
    a_ref[...] = x_ref[...]
    b_ref[...] = x_ref[...] * 2.0
    c_ref[...] = x_ref[...] * 3.0


def main():
    x = jnp.ones((16, 128), jnp.float32)
    spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
    part = jax.ShapeDtypeStruct(x.shape, x.dtype)
    a, b, c = pl.pallas_call(
        split_kernel,
        out_shape=(part, part, part),
        grid=(2,),
        in_specs=[spec],
        out_specs=(spec, spec),  # error
        interpret=True,
    )(x)
    print(c[0, :2])


if __name__ == "__main__":
    main()
