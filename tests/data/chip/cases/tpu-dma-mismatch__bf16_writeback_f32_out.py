# case: family=tpu-dma-mismatch chip=raises cpu=raises interp=raises
# intent: compute in a bf16 VMEM scratch, then DMA it back to an HBM (pl.ANY) output declared float32, through a write-back helper.
# grounded: Mosaic tpu_ops.cc EnqueueDMAOp::verify ("DMA source and target element type mismatch")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def write_back(src, dst, sem):
    copy = pltpu.make_async_copy(src_ref=src, dst_ref=dst, sem=sem)  # FAIL
    copy.start()
    copy.wait()


def scale_kernel(x_ref, o_hbm, acc, sem):
    acc[...] = (x_ref[...] * 3).astype(jnp.bfloat16)
    write_back(acc, o_hbm, sem)


def launch(x):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 256), jnp.float32),  # FAIL
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.VMEM((16, 256), jnp.bfloat16), pltpu.SemaphoreType.DMA(())],
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.linspace(-2.0, 2.0, 16 * 256, dtype=jnp.float32).reshape(16, 256),)


def reference(x):
    import ml_dtypes
    import numpy as np
    return (np.asarray(x) * 3).astype(ml_dtypes.bfloat16).astype(np.float32)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
