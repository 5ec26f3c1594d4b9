# pallas-lsp example: invalid
# note: Two float8_e4m3fn tiles multiplied and kept in fp8 (shared chip case dtype__fp8_elementwise.py); its fix is the fixed chip program tpu-fp8-elementwise__e4m3_mul_fixed.py, which ran clean.
# raises: MosaicError: failed to legalize operation 'arith.mulf'
# oracle: chip
# fix: Compute the * in float32 and cast the result back to float8_e4m3fn
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def fp8_mul_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = a_ref[...] * b_ref[...]  # error


def launch(a, b):
    return pl.pallas_call(fp8_mul_kernel, out_shape=jax.ShapeDtypeStruct(a.shape, jnp.float8_e4m3fn))(a, b)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(jax.ShapeDtypeStruct((32, 128), jnp.float8_e4m3fn), jax.ShapeDtypeStruct((32, 128), jnp.float8_e4m3fn)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
