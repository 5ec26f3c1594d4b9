# pallas-lsp example: invalid
# note: @pl.with_scoped allocates the scratch through run_scoped, shared over a collective axis (None still makes one), under a forced TPU interpret mode.
# raises: NotImplementedError: run_scoped_p with collective axes is not supported
# fix: Drop `collective_axes=` while interpreting (one scratch per core)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    @pl.with_scoped(pltpu.VMEM((8, 128), jnp.float32), collective_axes=None)  # error
    def triple(tmp):
        tmp[...] = x_ref[...] * 3.0
        o_ref[...] = tmp[...]

    triple()


def main():
    x = jnp.ones((8, 128), jnp.float32)
    with pltpu.force_tpu_interpret_mode():
        out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
