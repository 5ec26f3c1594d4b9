# pallas-lsp example: invalid
# note: int8 blocks multiplied into a float32 accumulator on a grid; Python lowering passes, libtpu's Mosaic refuses it (TPU v5e, jax 0.10.2).
# raises: MosaicError: .*float acc with int lhs
# fix: Accumulate in int32 and convert the result to float32 (exact while the int32 sums do not overflow; float32 accumulation rounds instead)
# oracle: chip
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def qmm_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)  # error


def qmm(a, b):
    return pl.pallas_call(
        qmm_kernel,
        grid=(2,),
        in_specs=[pl.BlockSpec((32, 256), lambda i: (i, 0)), pl.BlockSpec((256, 128), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((32, 128), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct((64, 128), jnp.float32),
    )(a, b)


def main():
    a = jnp.ones((64, 256), jnp.int8)
    b = jnp.ones((256, 128), jnp.int8)
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(qmm).trace(a, b).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
