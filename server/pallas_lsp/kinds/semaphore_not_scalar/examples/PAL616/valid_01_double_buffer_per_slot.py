# pallas-lsp example: valid
# note: The fixed double buffer: each copy signals its own slot, sems.at[slot].
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def pair_kernel(x_hbm, o_ref, bufs, sems):
    for slot in range(2):
        pltpu.async_copy(x_hbm.at[slot], bufs.at[slot], sems.at[slot]).wait()
    o_ref[...] = bufs[0] * bufs[1]


def main():
    x = jnp.ones((2, 8, 128), jnp.float32)
    out = pl.pallas_call(
        pair_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
        interpret=True,
    )(x)
    print(out[0, 0])


if __name__ == "__main__":
    main()
