# pallas-lsp example: invalid
# note: A module-level (1, 256) int32 row of offsets (jnp.arange), read twice in the kernel's own body; the fix passes it as the launch's last input.
# raises: ValueError: The kernel function in the pallas_call shift_rows_kernel at .* captures constants \[i32\[1,256\]\]\. You should pass them as inputs\.
# fix: Pass `OFFSETS` to the launch as an input (a new kernel parameter `OFFSETS_ref`)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

OFFSETS = jnp.arange(256, dtype=jnp.int32).reshape(1, 256)


def shift_rows_kernel(x_ref, o_ref):
    shifted = x_ref[...] + OFFSETS  # error
    o_ref[...] = jnp.where(OFFSETS % 7 > 3, shifted, 0)


def main():
    x = jnp.ones((16, 256), jnp.int32)
    out = pl.pallas_call(shift_rows_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
    print(out[0, :8])


if __name__ == "__main__":
    main()
