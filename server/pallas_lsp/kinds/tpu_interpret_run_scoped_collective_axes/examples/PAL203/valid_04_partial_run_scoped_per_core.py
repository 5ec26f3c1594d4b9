# pallas-lsp example: valid
# note: A functools.partial of pl.run_scoped with collective_axes=() (per-core scratch) runs in TPU interpret mode.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

scoped_across_cores = functools.partial(pl.run_scoped, collective_axes=())


def kernel(x_ref, o_ref):
    def body(tmp):
        tmp[...] = x_ref[...] - 1.0
        o_ref[...] = tmp[...]

    scoped_across_cores(body, pltpu.VMEM((8, 128), jnp.float32))


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         interpret=pltpu.InterpretParams())(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
