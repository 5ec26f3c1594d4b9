# pallas-lsp example: invalid
# note: jax.jacfwd of a function whose pallas_call sees the tangent: the batched JVP batches the primal output.
# raises: ValueError: at vmap out_axes\S*, got axis spec None but output was batched on axis 0
# fix: Stop the gradient at the kernel's inputs (jax.lax.stop_gradient: no gradient flows through it)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def exp_kernel(x_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...])


def total(scale, x):
    y = pl.pallas_call(exp_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x * scale)
    return y.sum()


def main():
    x = jnp.ones((8, 128), jnp.float32)
    print(jax.jacfwd(total)(0.5, x))  # error


if __name__ == "__main__":
    main()
