# case: family=tpu-int-indexing chip=clean cpu=lowers interp=clean
# intent: the clean twin: index the leading dim of a (4, 8, 128) f32 Ref with a scalar (the grid step), not an index vector.
# grounded: a scalar int index is a squeezed start (_indexer_to_start_size_stride); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def pick_kernel(x_ref, o_ref):
    k = pl.program_id(0)
    o_ref[...] = x_ref[k] * 2.0  # DECOY


def launch(x):
    return pl.pallas_call(
        pick_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        grid=(4,),
        in_specs=[pl.BlockSpec((4, 8, 128), lambda i: (0, 0, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (0, 0)),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(4 * 8 * 128, dtype=jnp.float32).reshape(4, 8, 128),)


def reference(x):
    return x[3] * 2.0


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
