# pallas-lsp example: invalid
# note: A 0-d jnp scalar built in the jitted wrapper, read by a kernel defined there.
# raises: ValueError: The kernel function in the pallas_call shift_kernel at .* captures constants \[bf16\[\]\]\. You should pass them as inputs\.
# fix: Pass `offset` to the launch as an input (a new kernel parameter `offset_ref`)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


@jax.jit
def shift(x):
    offset = jnp.bfloat16(0.5)

    def shift_kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] - offset  # error

    return pl.pallas_call(shift_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


def main():
    print(shift(jnp.ones((4, 128), jnp.bfloat16))[0, :2])


if __name__ == "__main__":
    main()
