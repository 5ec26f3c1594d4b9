# case: family=tpu-strided-ref-slice chip=raises cpu=lowers interp=clean
# intent: take every other row of a (16, 256) f32 VMEM tile through a strided Ref view x_ref.at[pl.ds(1, 8, stride=2)] and read it.
# grounded: a strided .at[] view read whole with [...] is one strided indexer (state get_ref_and_transforms), lowered as tpu.strided_load/strided_store, never _slice_memref; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def odd_rows_kernel(x_ref, o_ref):
    odd = x_ref.at[pl.ds(1, 8, stride=2)]  # DECOY
    o_ref[...] = odd[...] - 1.0


def launch(x):
    return pl.pallas_call(
        odd_rows_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 256), jnp.float32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(16 * 256, dtype=jnp.float32).reshape(16, 256),)


def reference(x):
    return x[1:16:2] - 1.0


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
