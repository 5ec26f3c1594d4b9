# pallas-lsp example: invalid
# note: A GridSpec whose grid bound is jnp.int32 of a shape (a JAX array), under jax.jvp.
# raises: NotImplementedError: interpret with dynamic grid bounds unsupported
# fix: Use the Python int `x.shape[0] // 8` instead of `jnp.int32(x.shape[0] // 8)` (a static grid has no dynamic bounds to differentiate)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def tanh_kernel(x_ref, o_ref):
    o_ref[...] = jnp.tanh(x_ref[...])


def apply_tanh(x):
    spec = pl.GridSpec(grid=(jnp.int32(x.shape[0] // 8),))  # error
    return pl.pallas_call(tanh_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid_spec=spec,
                          interpret=True)(x)


def main():
    x = jnp.linspace(-1.0, 1.0, 8 * 128, dtype=jnp.float32).reshape(8, 128)
    print(jax.jvp(apply_tanh, (x,), (jnp.ones_like(x),))[1][0, :4])


if __name__ == "__main__":
    main()
