# case: family=tpu-any-memory-load-store chip=clean cpu=lowers interp=clean
# intent: the fixed twin of store_any_output: the output's BlockSpec says memory_space=pltpu.VMEM instead of pl.ANY.
# grounded: VMEM refs take vector stores (_masked_swap_lowering_rule); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def bump_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1  # DECOY


def launch(x):
    return pl.pallas_call(
        bump_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 256), jnp.bfloat16),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
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
