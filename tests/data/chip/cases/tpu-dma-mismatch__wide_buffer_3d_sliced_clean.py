# case: family=tpu-dma-mismatch chip=clean cpu=lowers interp=clean
# intent: the clean twin of wide_buffer_3d: the copy names the first two row-blocks of the buffer, buf.at[pl.ds(0, 2)].
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False
STAGES = 3


def stage_kernel(x_hbm, o_ref, buf, sem):
    pltpu.make_async_copy(x_hbm, buf.at[pl.ds(0, 2)], sem).start()  # DECOY
    pltpu.make_async_copy(x_hbm, buf.at[pl.ds(0, 2)], sem).wait()
    o_ref[...] = buf[0] + buf[1]


def launch(x):
    return pl.pallas_call(
        stage_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.bfloat16),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((STAGES, 8, 128), jnp.bfloat16), pltpu.SemaphoreType.DMA(())],
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.ones((2, 8, 128), dtype=jnp.bfloat16),)


def reference(x):
    return x[0] + x[1]


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
