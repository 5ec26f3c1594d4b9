# case: family=tpu-strided-ref-slice chip=clean cpu=lowers interp=clean
# intent: write a (2, 8, 128) int32 tile into every other batch entry of a (4, 8, 128) output through o_ref.at[pl.ds(0, 2, stride=2)].
# grounded: a strided .at[] view written whole with [...] is one strided indexer (state get_ref_and_transforms), lowered as tpu.strided_load/strided_store, never _slice_memref; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def spread_kernel(x_ref, o_ref):
    o_ref[...] = jnp.zeros((4, 8, 128), jnp.int32)
    o_ref.at[pl.ds(0, 2, stride=2)][...] = x_ref[...]  # DECOY


def launch(x):
    return pl.pallas_call(
        spread_kernel,
        out_shape=jax.ShapeDtypeStruct((4, 8, 128), jnp.int32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(2 * 8 * 128, dtype=jnp.int32).reshape(2, 8, 128),)


def reference(x):
    import numpy as np
    out = np.zeros((4, 8, 128), np.int32)
    out[0::2] = x
    return out


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
