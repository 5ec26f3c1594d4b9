# pallas-lsp example: valid
# note: TPU VMEM on the output BlockSpec under a forced TPU interpret mode.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def main():
    x = jnp.ones((8, 128), jnp.float32)
    with pltpu.force_tpu_interpret_mode():
        out = pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                             out_specs=pl.BlockSpec(memory_space=pltpu.VMEM))(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
