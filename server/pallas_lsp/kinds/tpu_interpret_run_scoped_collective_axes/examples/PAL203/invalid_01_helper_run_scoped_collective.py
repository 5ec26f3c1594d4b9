# pallas-lsp example: invalid
# note: A helper allocates scratch shared over a collective axis (a tuple constant) in TPU interpret mode.
# raises: NotImplementedError: run_scoped_p with collective axes is not supported
# fix: Drop `collective_axes=` while interpreting (one scratch per core)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

SHARED = ("core",)


def with_scratch(body):
    return pl.run_scoped(body, pltpu.VMEM((8, 128), jnp.float32), collective_axes=SHARED)  # error


def kernel(x_ref, o_ref):
    def body(tmp):
        tmp[...] = x_ref[...] + 4.0
        o_ref[...] = tmp[...]

    with_scratch(body)


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         interpret=pltpu.InterpretParams())(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
