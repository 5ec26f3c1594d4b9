# case: family=tpu-dma-mismatch chip=clean cpu=lowers interp=clean
# intent: the fixed program of bf16_writeback_f32_out: the output is declared bfloat16, the scratch's dtype.
# grounded: fix of PAL730 (the HBM output in the scratch dtype)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def write_back(src, dst, sem):
    copy = pltpu.make_async_copy(src_ref=src, dst_ref=dst, sem=sem)  # DECOY
    copy.start()
    copy.wait()


def scale_kernel(x_ref, o_hbm, acc, sem):
    acc[...] = (x_ref[...] * 3).astype(jnp.bfloat16)
    write_back(acc, o_hbm, sem)


def launch(x):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 256), jnp.bfloat16),
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.VMEM((16, 256), jnp.bfloat16), pltpu.SemaphoreType.DMA(())],
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.linspace(-2.0, 2.0, 16 * 256, dtype=jnp.float32).reshape(16, 256),)


def reference(x):
    import ml_dtypes
    import numpy as np
    return (np.asarray(x) * 3).astype(ml_dtypes.bfloat16)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
