# pallas-lsp example: invalid
# note: The kernel calls a helper that builds a second pallas_call; that launch's kernel reads the outer kernel's VMEM scratch, handed to the helper as a parameter.
# raises: NotImplementedError: pallas_call does not support closing over Refs in memory space vmem\. Use pl\.kernel instead\.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROW = jax.ShapeDtypeStruct((8, 128), jnp.float32)


def normalise(total):
    def divide(o_ref):
        o_ref[...] = total[...] / 8.0  # error

    return pl.pallas_call(divide, out_shape=ROW, interpret=True)()


def accumulate(x_ref, o_ref, total):
    total[...] = x_ref[...] + x_ref[...]
    o_ref[...] = normalise(total)


if __name__ == "__main__":
    out = pl.pallas_call(accumulate, out_shape=ROW, scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],
                         interpret=True)(jnp.ones((8, 128), jnp.float32))
    print(out[0, :4])
