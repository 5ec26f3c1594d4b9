# pallas-lsp example: valid
# note: pl.program_id in an index map defined in the wrapper: index maps are traced under the grid.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def reverse_blocks(x):
    def reversed_block(i):
        return (pl.num_programs(0) - 1 - pl.program_id(0),)

    return pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(4,),
                          in_specs=[pl.BlockSpec((8,), reversed_block)],
                          out_specs=pl.BlockSpec((8,), lambda i: (i,)), interpret=True)(x)


def main():
    print(reverse_blocks(jnp.arange(32, dtype=jnp.float32))[:9])


if __name__ == "__main__":
    main()
