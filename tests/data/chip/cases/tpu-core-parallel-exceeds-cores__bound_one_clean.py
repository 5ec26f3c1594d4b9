# case: family=tpu-core-parallel-exceeds-cores chip=clean cpu=lowers interp=clean
# intent: a core-parallel leading axis of bound 1 (one core's share) over four arbitrary row blocks: no more than the chip's cores.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


def launch(x):
    spec = pl.BlockSpec((8, 128), lambda c, i: (c * 4 + i, 0))
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(1, 4),
        in_specs=[spec],
        out_specs=spec,
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=(pltpu.CORE_PARALLEL, pltpu.ARBITRARY)),  # DECOY
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(32 * 128, dtype=jnp.float32).reshape(32, 128),)


def reference(x):
    return x * 0.5


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
