# case: family=tpu-64-bit-types chip=raises cpu=lowers interp=clean
# intent: with jax_enable_x64 on, add 1 to a (8, 128) int64 counter array in the kernel.
# grounded: XLA's X64 rewriting of the tpu_custom_call ('While rewriting computation to not contain X64 element types'); chip decides
import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402

INTERPRET = False


def bump_kernel(c_ref, o_ref):
    o_ref[...] = c_ref[...] + 1


def launch(c):
    return pl.pallas_call(
        bump_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.int64),  # FAIL
        interpret=INTERPRET,
    )(c)  # FAIL


def inputs():
    return (jnp.arange(8 * 128, dtype=jnp.int64).reshape(8, 128),)


def reference(c):
    return c + 1


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
