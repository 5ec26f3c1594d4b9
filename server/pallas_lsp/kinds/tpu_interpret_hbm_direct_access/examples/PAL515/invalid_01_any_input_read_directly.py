# pallas-lsp example: invalid
# note: An input placed in pl.ANY read with ref[...] in TPU interpret mode.
# raises: ValueError: get_p: Buffers with a memory space of HBM or ANY cannot be referenced directly\.
# fix: Let Pallas copy `table_hbm` into VMEM (memory_space=pltpu.VMEM; the whole block must fit in VMEM)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(scale_ref, table_hbm, o_ref):
    o_ref[...] = table_hbm[...] * scale_ref[...]  # error


def main():
    x = jnp.ones((8, 128), jnp.float32)
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          in_specs=[pl.BlockSpec((8, 128), lambda: (0, 0)), pl.BlockSpec(memory_space=pl.ANY)],
                          interpret=pltpu.InterpretParams())
    print(call(x, x)[0, :4])


if __name__ == "__main__":
    main()
