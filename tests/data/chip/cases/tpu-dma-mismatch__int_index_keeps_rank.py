# case: family=tpu-dma-mismatch chip=raises cpu=raises interp=raises
# intent: copy batch b of a (4, 8, 128) HBM array with x_hbm.at[b] (an integer index drops the dim: (8, 128)) into a (1, 8, 128) VMEM buffer.
# grounded: Mosaic tpu_ops.cc EnqueueDMAOp::verify ("DMA source and target shape mismatch."): memref shapes must be equal, rank included
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False
B, R, L = 4, 8, 128


def pick_kernel(x_hbm, o_ref, buf, sem):
    b = pl.program_id(0)
    pltpu.async_copy(x_hbm.at[b], buf, sem).wait()  # FAIL
    o_ref[...] = buf[0] + 1


def launch(x):
    return pl.pallas_call(
        pick_kernel,
        out_shape=jax.ShapeDtypeStruct((B * R, L), jnp.int32),
        grid=(B,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((R, L), lambda b: (b, 0)),
        scratch_shapes=[pltpu.VMEM((1, R, L), jnp.int32), pltpu.SemaphoreType.DMA],  # FAIL
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(B * R * L, dtype=jnp.int32).reshape(B, R, L),)


def reference(x):
    return x.reshape(B * R, L) + 1


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
