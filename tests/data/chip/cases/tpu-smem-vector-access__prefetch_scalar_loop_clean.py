# case: family=tpu-smem-vector-access chip=clean cpu=lowers interp=clean
# intent: the clean twin of prefetch_row_read: the row of the SMEM table is summed one scalar w_ref[i, j] at a time in a fori_loop.
# grounded: scalar SMEM loads (_load_lowering_rule); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def weighted_kernel(w_ref, x_ref, o_ref):
    i = pl.program_id(0)
    total = jax.lax.fori_loop(0, 4, lambda j, acc: acc + w_ref[i, j], jnp.int32(0))  # DECOY
    o_ref[...] = x_ref[...] * total


def launch(w, x):
    return pl.pallas_call(
        weighted_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.int32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(2,),
            in_specs=[pl.BlockSpec((8, 128), lambda i, w: (i, 0))],
            out_specs=pl.BlockSpec((8, 128), lambda i, w: (i, 0)),
        ),
        interpret=INTERPRET,
    )(w, x)


def inputs():
    return (jnp.arange(8, dtype=jnp.int32).reshape(2, 4), jnp.ones((16, 128), jnp.int32))


def reference(w, x):
    import numpy as np
    w = np.asarray(w)
    return np.concatenate([np.asarray(x[:8]) * w[0].sum(), np.asarray(x[8:]) * w[1].sum()])


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
