# pallas-lsp example: valid
# note: Without jax_enable_x64, astype(jnp.float64) is float32 (chip case cases/tpu-64-bit-types__astype_float64_no_x64_clean.py ran clean).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def precise_sum_kernel(x_ref, o_ref):
    x64 = x_ref[...].astype(jnp.float64)
    s = jnp.sum(x64, axis=1, keepdims=True)
    o_ref[...] = jnp.broadcast_to(s.astype(jnp.float32), o_ref.shape)


def launch(x):
    return pl.pallas_call(precise_sum_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32))(x)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
