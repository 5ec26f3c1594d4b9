# pallas-lsp example: valid
# note: The clean twin of invalid_01: the same helper called only inside the kernel.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def steps_taken():
    return pl.num_programs(0)


def add_one_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + steps_taken() - 3


@jax.jit
def add_one(x):
    out = pl.pallas_call(add_one_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(4,),
                         in_specs=[pl.BlockSpec((16,), lambda i: (i,))],
                         out_specs=pl.BlockSpec((16,), lambda i: (i,)), interpret=True)(x)
    return out, x.shape[0] // 16


def main():
    print(add_one(jnp.zeros((64,), jnp.int32))[0][:4])


if __name__ == "__main__":
    main()
