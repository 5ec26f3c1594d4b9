# pallas-lsp example: valid
# note: The helper hands the scratch's value to its launch as an input: nothing is closed over.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROW = jax.ShapeDtypeStruct((8, 128), jnp.float32)


def normalise(total):
    def divide(t_ref, o_ref):
        o_ref[...] = t_ref[...] / 8.0

    return pl.pallas_call(divide, out_shape=ROW, interpret=True)(total)


def accumulate(x_ref, o_ref, total):
    total[...] = x_ref[...] + x_ref[...]
    o_ref[...] = normalise(total[...])


if __name__ == "__main__":
    out = pl.pallas_call(accumulate, out_shape=ROW, scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],
                         interpret=True)(jnp.ones((8, 128), jnp.float32))
    print(out[0, :4])
