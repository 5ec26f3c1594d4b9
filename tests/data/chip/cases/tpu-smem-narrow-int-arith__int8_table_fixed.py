# case: family=tpu-smem-narrow-int-arith chip=clean cpu=lowers interp=clean
# intent: the fixed program of smem__int8_table_arith: the int8 SMEM scalar cast to int32 before the multiplication.
# grounded: Mosaic scalar integer arithmetic is i32; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


NB = 4


def weighted_kernel(w_ref, x_ref, o_ref):
    i = pl.program_id(0)
    w = w_ref[i].astype(jnp.int32) * jnp.int32(2)
    o_ref[...] = x_ref[...] * w.astype(jnp.float32)


def launch(w, x):
    return pl.pallas_call(
        weighted_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(NB,),
        in_specs=[
            pl.BlockSpec(memory_space=pltpu.SMEM),
            pl.BlockSpec((8, 128), lambda i: (i, 0)),
        ],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        interpret=INTERPRET,
    )(w, x)


def inputs():
    w = jnp.array([1, -2, 3, 5], dtype=jnp.int8)
    x = jnp.arange(NB * 8 * 128, dtype=jnp.float32).reshape(NB * 8, 128) / 100.0
    return (w, x)


def reference(w, x):
    import numpy as np
    return x * np.repeat(w.astype(np.float32) * 2.0, 8)[:, None]


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
