# case: family=tpu-dma-mismatch chip=raises cpu=raises interp=raises
# intent: stage a (2, 8, 128) bf16 HBM array in a VMEM buffer allocated one row-block too large, (3, 8, 128).
# grounded: Mosaic tpu_ops.cc EnqueueDMAOp::verify ("DMA source and target shape mismatch."), run by Pallas lowering's verify
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False
STAGES = 3


def stage_kernel(x_hbm, o_ref, buf, sem):
    pltpu.make_async_copy(x_hbm, buf, sem).start()  # FAIL
    pltpu.make_async_copy(x_hbm, buf, sem).wait()
    o_ref[...] = buf[0] + buf[1]


def launch(x):
    return pl.pallas_call(
        stage_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.bfloat16),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((STAGES, 8, 128), jnp.bfloat16), pltpu.SemaphoreType.DMA(())],  # FAIL
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
