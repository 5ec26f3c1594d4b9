# case: family=tpu-dma-mismatch chip=raises cpu=raises interp=raises
# intent: copy int32 token ids from HBM into an f32 VMEM buffer through a small fetch helper, hoping the DMA converts.
# grounded: Mosaic tpu_ops.cc EnqueueDMAOp::verify ("DMA source and target element type mismatch"), run by Pallas lowering's verify
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def fetch(src, dst, sem):
    copy = pltpu.make_async_copy(src, dst, sem)  # FAIL
    copy.start()
    copy.wait()


def ids_kernel(ids_hbm, o_ref, staging, sem):
    fetch(ids_hbm, staging, sem)
    o_ref[...] = staging[...] + 0.5


def launch(ids):
    return pl.pallas_call(
        ids_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((16, 128), jnp.float32), pltpu.SemaphoreType.DMA(())],  # FAIL
        interpret=INTERPRET,
    )(ids)


def inputs():
    return (jnp.arange(16 * 128, dtype=jnp.int32).reshape(16, 128),)


def reference(ids):
    return ids.astype("float32") + 0.5


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
