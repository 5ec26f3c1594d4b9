# pallas-lsp example: valid
# note: The same scratch in interpret mode: the interpreter allocates it (Triton is never asked).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def staged_copy_kernel(x_ref, o_ref, tmp_ref):
    tmp_ref[...] = x_ref[...] + 1.0
    o_ref[...] = tmp_ref[...]


def main():
    x = jnp.arange(256, dtype=jnp.float32)
    out = pl.pallas_call(staged_copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         scratch_shapes=[pltpu.VMEM((256,), jnp.float32)], interpret=True)(x)
    print(out[:3])


if __name__ == "__main__":
    main()
