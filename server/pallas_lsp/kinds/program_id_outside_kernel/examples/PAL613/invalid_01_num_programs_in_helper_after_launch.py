# pallas-lsp example: invalid
# note: A helper that asks pl.num_programs, called by the wrapper after the pallas_call (interpret=True).
# raises: AssertionError: ^$
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def steps_taken():
    return pl.num_programs(0)


def add_one_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1


@jax.jit
def add_one(x):
    out = pl.pallas_call(add_one_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(4,),
                         in_specs=[pl.BlockSpec((16,), lambda i: (i,))],
                         out_specs=pl.BlockSpec((16,), lambda i: (i,)), interpret=True)(x)
    return out, steps_taken()  # error


def main():
    print(add_one(jnp.zeros((64,), jnp.int32))[0][:4])


if __name__ == "__main__":
    main()
