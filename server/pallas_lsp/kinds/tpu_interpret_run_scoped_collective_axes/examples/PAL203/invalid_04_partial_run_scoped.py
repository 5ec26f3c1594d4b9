# pallas-lsp example: invalid
# note: functools.partial binds collective_axes to pl.run_scoped once; the kernel calls the partial in TPU interpret mode.
# raises: NotImplementedError: run_scoped_p with collective axes is not supported
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

scoped_across_cores = functools.partial(pl.run_scoped, collective_axes="core")


def kernel(x_ref, o_ref):
    def body(tmp):
        tmp[...] = x_ref[...] - 1.0
        o_ref[...] = tmp[...]

    scoped_across_cores(body, pltpu.VMEM((8, 128), jnp.float32))  # error


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         interpret=pltpu.InterpretParams())(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
