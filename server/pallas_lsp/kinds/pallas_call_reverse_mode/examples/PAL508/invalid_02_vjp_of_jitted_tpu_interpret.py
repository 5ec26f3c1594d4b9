# pallas-lsp example: invalid
# note: jax.vjp of a jitted function whose pallas_call runs in the TPU interpreter.
# raises: ValueError: Linearization failed to produce known values for all output primals
# fix: Stop the gradient at the kernel's inputs (jax.lax.stop_gradient: no gradient flows through it)
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def softplus_kernel(x_ref, o_ref):
    o_ref[...] = jnp.log1p(jnp.exp(x_ref[...]))


@functools.partial(jax.jit, static_argnames=("block",))
def softplus(x, block=128):
    return pl.pallas_call(
        softplus_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // block,),
        in_specs=[pl.BlockSpec((block, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((block, 128), lambda i: (i, 0)),
        interpret=pltpu.InterpretParams(),
    )(x)


def main():
    x = jnp.zeros((256, 128), jnp.float32)
    y, pullback = jax.vjp(softplus, x)  # error
    print(pullback(jnp.ones_like(y))[0][0, :4])


if __name__ == "__main__":
    main()
