# pallas-lsp example: valid
# note: The int8 SMEM scalar cast to int32 before the product (chip case cases/tpu-smem-narrow-int-arith__int8_table_fixed.py ran clean).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

NB = 4


def weighted_kernel(w_ref, x_ref, o_ref):
    i = pl.program_id(0)
    w = w_ref[i].astype(jnp.int32) * jnp.int32(2)
    o_ref[...] = x_ref[...] * w.astype(jnp.float32)


def launch(w, x):
    return pl.pallas_call(
        weighted_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(NB,),
        in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM), pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    )(w, x)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(jax.ShapeDtypeStruct((NB,), jnp.int8), jax.ShapeDtypeStruct((NB * 8, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
