# case: family=compiler-params-wrong-backend chip=raises cpu=raises interp=clean
# intent: a Triton-tuned launch (plt.CompilerParams(num_warps=8)) applied as a functools.partial decorator, bf16 operands, run on TPU.
# grounded: jax/_src/pallas/mosaic/pallas_call_registration.py pallas_call_tpu_lowering_rule (0.10.2: bare AssertionError); jax/_src/pallas/core.py get_lowering_rule (0.12: "Compiler params for platform gpu cannot be used for tpu lowering.")
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plt

INTERPRET = False

N = 2048
TRITON_PARAMS = plt.CompilerParams(num_warps=8, num_stages=3)


@functools.partial(
    pl.pallas_call,
    out_shape=jax.ShapeDtypeStruct((N,), jnp.bfloat16),
    grid=(N // 1024,),
    in_specs=[pl.BlockSpec((1024,), lambda i: (i,)), pl.BlockSpec((1024,), lambda i: (i,))],
    out_specs=pl.BlockSpec((1024,), lambda i: (i,)),
    compiler_params=TRITON_PARAMS,  # FAIL
    interpret=INTERPRET,
)
def axpy_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] * 3 + y_ref[...]


def launch(x, y):
    return axpy_kernel(x, y)


def inputs():
    x = (jnp.arange(N, dtype=jnp.float32) % 64).astype(jnp.bfloat16)
    return (x, x - 1)


def reference(x, y):
    return x * 3 + y


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
