# pallas-lsp example: valid
# note: The output block spans the whole last dim (192), which the lowering accepts.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

ROWS, COLS = 32, 192


def gather_rows_kernel(order_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def gather_rows(order, x):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(ROWS // 8,),
        in_specs=[pl.BlockSpec((8, COLS), lambda i, order: (order[i], 0))],
        out_specs=pl.BlockSpec((8, COLS), lambda i, order: (i, 0)),
    )
    return pl.pallas_call(gather_rows_kernel, grid_spec=grid_spec,
                          out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32))(order, x)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(gather_rows).trace(jax.ShapeDtypeStruct((ROWS // 8,), jnp.int32),
                                   jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
