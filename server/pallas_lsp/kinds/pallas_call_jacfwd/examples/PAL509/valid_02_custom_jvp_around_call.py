# pallas-lsp example: valid
# note: A jax.custom_jvp gives the kernel call its own derivative, which jax.jacfwd batches without the pallas_call's JVP rule.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def exp_kernel(x_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...])


@jax.custom_jvp
def kernel_exp(x):
    return pl.pallas_call(exp_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


@kernel_exp.defjvp
def _kernel_exp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = kernel_exp(x)
    return y, y * t


def main():
    x = jnp.ones((8, 128), jnp.float32)
    print(jax.jacfwd(lambda s: kernel_exp(x * s).sum())(0.5))


if __name__ == "__main__":
    main()
