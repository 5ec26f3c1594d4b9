# pallas-lsp example: invalid
# note: A float16 input read as a vector, widened in a helper (chip case cases/tpu-float16-vector__upcast_in_kernel.py).
# raises: MosaicError: Invalid vector type for load
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def widen(v):
    return v.astype(jnp.float32) * 2.0


def widen_kernel(h_ref, o_ref):
    o_ref[...] = widen(h_ref[...])  # error


def launch(h):
    return pl.pallas_call(widen_kernel, out_shape=jax.ShapeDtypeStruct(h.shape, jnp.float32))(h)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(jax.ShapeDtypeStruct((16, 128), jnp.float16)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
