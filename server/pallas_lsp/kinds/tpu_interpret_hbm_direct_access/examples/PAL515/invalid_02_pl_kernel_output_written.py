# pallas-lsp example: invalid
# note: pl.kernel on a TPU core mesh: its output Ref is in HBM, written directly by a helper.
# raises: ValueError: swap_p: Buffers with a memory space of HBM or ANY cannot be referenced directly\.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def fill(dst, value):
    dst[...] = jnp.full(dst.shape, value, dst.dtype)  # error


def main():
    @pl.kernel(out_type=jax.ShapeDtypeStruct((8, 128), jnp.float32),
               mesh=pltpu.create_tensorcore_mesh("core", num_cores=1), interpret=pltpu.InterpretParams())
    def sevens(o_hbm):
        fill(o_hbm, 7.0)

    print(sevens()[0, :4])


if __name__ == "__main__":
    main()
