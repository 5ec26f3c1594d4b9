# case: family=tpu-smem-narrow-int-arith chip=raises cpu=lowers interp=clean
# intent: multiply two uint8 scalars read from an SMEM table (pltpu.SMEM memory space) and scale a float32 tile by the product.
# grounded: Mosaic (libtpu) scalar integer arithmetic: only i32 ('Only i32 arith.muli is supported'); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def gain_kernel(w_ref, x_ref, o_ref):
    g = w_ref[0] * w_ref[1]  # FAIL
    o_ref[...] = x_ref[...] * g.astype(jnp.float32)


def launch(w, x):
    return pl.pallas_call(
        gain_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM), pl.BlockSpec(memory_space=pltpu.VMEM)],  # FAIL
        interpret=INTERPRET,
    )(w, x)


def inputs():
    return (jnp.array([3, 5], dtype=jnp.uint8), jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128) / 100.0)


def reference(w, x):
    return x * 15.0


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
