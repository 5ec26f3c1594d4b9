# case: family=tpu-any-memory-load-store chip=raises cpu=raises interp=clean
# intent: add one to a (16, 256) bf16 array and write the result straight into an output left in HBM (out_specs memory_space=pl.ANY).
# grounded: jax/_src/pallas/mosaic/lowering.py _masked_swap_lowering_rule ("Loads and stores are only allowed on VMEM and SMEM references. ANY memory space can only be accessed using async_copy.")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def bump_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1  # FAIL


def launch(x):
    return pl.pallas_call(
        bump_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 256), jnp.bfloat16),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),  # FAIL
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(16 * 256, dtype=jnp.float32).reshape(16, 256).astype(jnp.bfloat16) / 64,)


def reference(x):
    return x + 1


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
