# case: family=tpu-dimension-semantics-invalid chip=raises cpu=raises interp=clean
# intent: a helper builds the TPU params with "Parallel" capitalised (Mosaic parses the attribute case-sensitively); bf16 rows.
# grounded: jax/_src/pallas/mosaic/lowering.py _get_dimension_semantics (ir.Attribute.parse of "#tpu.dimension_semantics<Parallel>")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def row_params(axis_kind):
    return pltpu.CompilerParams(dimension_semantics=(axis_kind,))


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


def launch(x):
    rows, cols = x.shape
    return pl.pallas_call(
        double_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(rows // 16,),
        in_specs=[pl.BlockSpec((16, cols), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((16, cols), lambda i: (i, 0)),
        compiler_params=row_params("Parallel"),  # FAIL
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(64 * 256, dtype=jnp.float32).reshape(64, 256).astype(jnp.bfloat16),)


def reference(x):
    return x * 2


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
