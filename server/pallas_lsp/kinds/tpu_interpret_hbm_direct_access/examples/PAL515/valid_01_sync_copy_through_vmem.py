# pallas-lsp example: valid
# note: The pl.ANY input copied into VMEM scratch with pltpu.sync_copy, then read.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(table_hbm, o_ref, tmp):
    pltpu.sync_copy(table_hbm, tmp)
    o_ref[...] = tmp[...] + 1.0


def main():
    x = jnp.ones((8, 128), jnp.float32)
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                          scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],
                          interpret=pltpu.InterpretParams())
    print(call(x)[0, :4])


if __name__ == "__main__":
    main()
