# case: family=compiler-params-unknown-field chip=clean cpu=lowers interp=clean
# intent: the fixed program of vmem_limit_typo_helper (vmem_limit= renamed vmem_limit_bytes=): a helper that builds the TPU params misspells vmem_limit_bytes as vmem_limit; the launch sits in a jitted wrapper.
# grounded: jax/_src/pallas/mosaic/core.py CompilerParams.__init__ (TypeError: unexpected keyword argument 'vmem_limit')
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False

VMEM_LIMIT = 32 * 1024 * 1024


def tpu_params(limit):
    return pltpu.CompilerParams(vmem_limit_bytes=limit)  # DECOY


def square_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * x_ref[...]


@jax.jit
def launch(x):
    return pl.pallas_call(
        square_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 8, x.shape[1] // 128),
        in_specs=[pl.BlockSpec((8, 128), lambda i, j: (i, j))],
        out_specs=pl.BlockSpec((8, 128), lambda i, j: (i, j)),
        compiler_params=tpu_params(VMEM_LIMIT),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(24 * 384, dtype=jnp.float32).reshape(24, 384) / 1000.0,)


def reference(x):
    return x * x


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
