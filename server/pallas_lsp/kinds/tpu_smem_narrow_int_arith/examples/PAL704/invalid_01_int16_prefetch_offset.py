# pallas-lsp example: invalid
# note: An int16 scalar-prefetch entry incremented in the kernel body (chip case cases/tpu-smem-narrow-int-arith__int16_prefetch_add.py).
# raises: MosaicError: Only i32 arith.addi is supported, but got 'i16'
# oracle: chip
# fix: Cast the int16 scalars to int32 before the arithmetic
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

ROWS, COLS, TR, NSTEPS = 64, 128, 8, 4


def shift_kernel(order_ref, x_ref, o_ref):
    nxt = order_ref[pl.program_id(0)] + jnp.int16(1)  # error
    o_ref[...] = x_ref[...] + nxt.astype(jnp.float32)


def launch(order, table):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(NSTEPS,),
        in_specs=[pl.BlockSpec((TR, COLS), lambda i, order_ref: (order_ref[i].astype(jnp.int32), 0))],
        out_specs=pl.BlockSpec((TR, COLS), lambda i, order_ref: (i, 0)),
    )
    return pl.pallas_call(shift_kernel, grid_spec=grid_spec,
                          out_shape=jax.ShapeDtypeStruct((NSTEPS * TR, COLS), jnp.float32))(order, table)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(jax.ShapeDtypeStruct((NSTEPS,), jnp.int16), jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
