# pallas-lsp example: invalid
# note: The grid bound is an argument jax.jit traces; jax.jvp of the launch then has a dynamic grid.
# raises: NotImplementedError: interpret with dynamic grid bounds unsupported
# fix: Make `steps` static: add it to static_argnames of jax.jit (a static grid has no dynamic bounds to differentiate)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def sin_kernel(x_ref, o_ref):
    o_ref[...] = jnp.sin(x_ref[...])


@jax.jit
def apply_sin(x, steps):
    return pl.pallas_call(sin_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(steps,), interpret=True)(x)  # error


def main():
    x = jnp.linspace(0.0, 1.0, 128, dtype=jnp.float32)
    print(jax.jvp(lambda v: apply_sin(v, 1), (x,), (jnp.ones_like(x),))[1][:4])


if __name__ == "__main__":
    main()
