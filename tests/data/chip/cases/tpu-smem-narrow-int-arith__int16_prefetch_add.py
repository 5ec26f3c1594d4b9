# case: family=tpu-smem-narrow-int-arith chip=raises cpu=lowers interp=clean
# intent: gather 8-row blocks by an int16 scalar-prefetch table and also add 1 to the int16 entry inside the kernel body (scalar int16 addition).
# grounded: Mosaic canonicalize_arith_addi ('Only i32 addition is supported') / libtpu; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


ROWS, COLS, TR, NSTEPS = 64, 128, 8, 4


def shift_kernel(order_ref, x_ref, o_ref):
    nxt = order_ref[pl.program_id(0)] + jnp.int16(1)  # FAIL
    o_ref[...] = x_ref[...] + nxt.astype(jnp.float32)


def launch(order, table):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(NSTEPS,),
        in_specs=[pl.BlockSpec((TR, COLS), lambda i, order_ref: (order_ref[i].astype(jnp.int32), 0))],
        out_specs=pl.BlockSpec((TR, COLS), lambda i, order_ref: (i, 0)),
    )
    return pl.pallas_call(
        shift_kernel,
        grid_spec=grid_spec,
        out_shape=jax.ShapeDtypeStruct((NSTEPS * TR, COLS), jnp.float32),
        interpret=INTERPRET,
    )(order, table)


def inputs():
    order = jnp.array([5, 0, 2, 7], dtype=jnp.int16)  # FAIL
    table = jnp.arange(ROWS * COLS, dtype=jnp.float32).reshape(ROWS, COLS)
    return (order, table)


def reference(order, table):
    import numpy as np
    return np.concatenate([table[int(o) * TR:(int(o) + 1) * TR] + (int(o) + 1) for o in order], axis=0)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
