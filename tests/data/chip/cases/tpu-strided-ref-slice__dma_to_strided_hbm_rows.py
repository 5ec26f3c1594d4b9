# case: family=tpu-strided-ref-slice chip=raises cpu=raises interp=clean
# intent: compute an (8, 128) bf16 tile in VMEM scratch and DMA it into the even rows of a (16, 128) HBM output (o_hbm.at[pl.ds(0, 8, stride=2)]).
# grounded: jax/_src/pallas/mosaic/lowering.py _slice_memref ("Strided slices of references are unsupported.")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def scatter_rows_kernel(x_ref, init_hbm, o_hbm, buf, sem):
    del init_hbm  # (aliased to o_hbm: its zeros fill the odd rows)
    buf[...] = x_ref[...] * 2
    copy = pltpu.make_async_copy(buf, o_hbm.at[pl.ds(0, 8, stride=2), :], sem)  # FAIL
    copy.start()
    copy.wait()


def launch(x):
    return pl.pallas_call(
        scatter_rows_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.bfloat16),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.bfloat16), pltpu.SemaphoreType.DMA(())],
        input_output_aliases={1: 0},
        interpret=INTERPRET,
    )(x, jnp.zeros((16, 128), jnp.bfloat16))


def inputs():
    return (jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128).astype(jnp.bfloat16),)


def reference(x):
    import numpy as np
    out = np.zeros((16, 128), np.float32)
    out[0::2] = np.asarray(x, np.float32) * 2
    return out


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
