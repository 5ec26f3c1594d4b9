# pallas-lsp example: valid
# note: The same local decorator factory given collective_axes=() (one scratch per core) runs under a forced TPU interpret mode.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def shared_scratch(*types, collective_axes="core"):
    def decorate(fn):
        def run():
            return pl.run_scoped(fn, *types, collective_axes=collective_axes)
        return run
    return decorate


def add_five(x_ref, o_ref):
    @shared_scratch(pltpu.VMEM((8, 128), jnp.float32), collective_axes=())
    def body(tmp):
        tmp[...] = x_ref[...] + 5.0
        o_ref[...] = tmp[...]

    body()


def kernel(x_ref, o_ref):
    add_five(x_ref, o_ref)


def main():
    x = jnp.ones((8, 128), jnp.float32)
    with pltpu.force_tpu_interpret_mode():
        out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
