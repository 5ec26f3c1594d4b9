# case: family=tpu-dma-mismatch chip=clean cpu=lowers interp=clean
# intent: the clean twin of int32_into_f32_helper: the staging buffer has the ids' dtype and the cast happens after the copy.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def fetch(src, dst, sem):
    copy = pltpu.make_async_copy(src, dst, sem)  # DECOY
    copy.start()
    copy.wait()


def ids_kernel(ids_hbm, o_ref, staging, sem):
    fetch(ids_hbm, staging, sem)
    o_ref[...] = staging[...].astype(jnp.float32) + 0.5


def launch(ids):
    return pl.pallas_call(
        ids_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((16, 128), jnp.int32), pltpu.SemaphoreType.DMA(())],
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
