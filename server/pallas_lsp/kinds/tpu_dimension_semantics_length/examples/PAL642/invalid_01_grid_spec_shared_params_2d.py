# pallas-lsp example: invalid
# note: Compiler params written for a 2-D grid, reused by a launch whose pl.GridSpec grid has one axis.
# raises: ValueError: Length of grid does not match length of dimension semantics. len\(grid\)=1, len\(dimension_semantics\)=2
# fix: Drop the extra entry of dimension_semantics (the grid has 1 axis)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

MATMUL_PARAMS = pltpu.CompilerParams(dimension_semantics=(pltpu.PARALLEL, pltpu.PARALLEL))


def bias_kernel(x_ref, b_ref, o_ref):
    o_ref[...] = x_ref[...] + b_ref[...]


def add_bias(x, b):
    return pl.pallas_call(
        bias_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid_spec=pl.GridSpec(
            grid=(x.shape[0] // 64,),
            in_specs=[pl.BlockSpec((64, 256), lambda i: (i, 0)), pl.BlockSpec((1, 256), lambda i: (0, 0))],
            out_specs=pl.BlockSpec((64, 256), lambda i: (i, 0)),
        ),
        compiler_params=MATMUL_PARAMS,  # error
    )(x, b)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(add_bias).trace(jax.ShapeDtypeStruct((512, 256), jnp.float32),
                                jax.ShapeDtypeStruct((1, 256), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
