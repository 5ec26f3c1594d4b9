# case: family=tpu-unproven-lane-alignment chip=raises cpu=lowers interp=clean
# intent: store an (8, 128) int32 tile at a lane offset read from a scalar-prefetch table (o_ref[:, pl.ds(starts_ref[0], 128)] = x).
# grounded: Mosaic (libtpu) cannot prove a start loaded from SMEM is a multiple of 128 (E2003); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def place_kernel(starts_ref, x_ref, o_ref):
    o_ref[...] = jnp.zeros((8, 384), jnp.int32)
    o_ref[:, pl.ds(starts_ref[0], 128)] = x_ref[...]  # FAIL


def launch(starts, x):
    return pl.pallas_call(
        place_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 384), jnp.int32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(1,),
            in_specs=[pl.BlockSpec((8, 128), lambda i, s: (0, 0))],
            out_specs=pl.BlockSpec((8, 384), lambda i, s: (0, 0)),
        ),
        interpret=INTERPRET,
    )(starts, x)


def inputs():
    return (jnp.array([128], jnp.int32), jnp.arange(8 * 128, dtype=jnp.int32).reshape(8, 128))


def reference(starts, x):
    import numpy as np
    out = np.zeros((8, 384), np.int32)
    out[:, 128:256] = x
    return out


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
