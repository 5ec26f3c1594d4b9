# pallas-lsp example: invalid
# note: A helper takes the per-row maximum of int16 values with jnp.amax.
# raises: NotImplementedError: Reductions over int16 not implemented\.
# fix: Cast the operand to int32 before reducing (exact for these values; the result is int32, not the original dtype)
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def _row_peak(x):
    return jnp.amax(x, axis=1, keepdims=True)  # error


def peak_kernel(x_ref, o_ref):
    o_ref[...] = _row_peak(x_ref[...]).astype(jnp.int32)


def peak(x):
    return pl.pallas_call(peak_kernel, out_shape=jax.ShapeDtypeStruct((16, 1), jnp.int32))(x)


def main():
    x = jnp.ones((16, 128), jnp.int16)
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(peak).trace(x).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
