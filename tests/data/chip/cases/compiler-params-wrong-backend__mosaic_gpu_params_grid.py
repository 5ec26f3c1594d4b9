# case: family=compiler-params-wrong-backend chip=raises cpu=raises interp=raises
# intent: a kernel shared with a Mosaic GPU build keeps plgpu.CompilerParams (in a variable) on a gridded pallas_call run on TPU.
# grounded: jax/_src/pallas/mosaic/pallas_call_registration.py pallas_call_tpu_lowering_rule (asserts its params are tpu_core.CompilerParams: a bare AssertionError)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

INTERPRET = False


def scale_rows_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5 + 1.0


def launch(x):
    params = plgpu.CompilerParams(approx_math=True)
    return pl.pallas_call(
        scale_rows_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 8,),
        in_specs=[pl.BlockSpec((8, 512), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 512), lambda i: (i, 0)),
        compiler_params=params,  # FAIL
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(32 * 512, dtype=jnp.float32).reshape(32, 512) / 100.0,)


def reference(x):
    return x * 0.5 + 1.0


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
