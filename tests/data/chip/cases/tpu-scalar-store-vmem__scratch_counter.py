# case: family=tpu-scalar-store-vmem chip=raises cpu=raises interp=clean
# intent: record the grid step in element [2, 5] of an int32 VMEM scratch buffer with a scalar store, then copy the buffer out.
# grounded: jax/_src/pallas/mosaic/lowering.py _masked_swap_lowering_rule ("Cannot store scalars to VMEM")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def step_kernel(x_ref, o_ref, acc_ref):
    acc_ref[...] = x_ref[...]
    acc_ref[2, 5] = pl.program_id(0)  # FAIL
    o_ref[...] = acc_ref[...]


def launch(x):
    return pl.pallas_call(
        step_kernel,
        out_shape=jax.ShapeDtypeStruct((24, 128), jnp.int32),
        grid=(3,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.int32)],
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.full((24, 128), -1, jnp.int32),)


def reference(x):
    import numpy as np
    out = np.array(x)
    for i in range(3):
        out[8 * i + 2, 5] = i
    return out


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
