# pallas-lsp example: invalid
# note: pltpu.sync_copy of uint8 HBM codes into an int16 VMEM scratch, expecting the copy to widen them.
# raises: VerificationError: .*'tpu\.enqueue_dma' op DMA source and target element type mismatch
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def codes_kernel(codes_hbm, o_ref, staging):
    pltpu.sync_copy(codes_hbm, staging)  # error
    o_ref[...] = staging[...].astype(jnp.int32)


def decode(codes):
    return pl.pallas_call(
        codes_kernel,
        out_shape=jax.ShapeDtypeStruct((32, 128), jnp.int32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((32, 128), jnp.int16)],
    )(codes)


def main():
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(decode).trace(jax.ShapeDtypeStruct((32, 128), jnp.uint8)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
