# pallas-lsp example: valid
# note: The bfloat16 tile widened to float32 before expand_dims, cast back after the broadcast (chip case cases/tpu-unsupported-shape-cast__bf16_expand_minor_fixed.py ran clean).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def outer_kernel(x_ref, o_ref):
    x = x_ref[...]
    col = jnp.expand_dims(x.astype(jnp.float32), -1)
    o_ref[...] = jnp.broadcast_to(col, o_ref.shape).astype(o_ref.dtype)


def launch(x):
    return pl.pallas_call(outer_kernel, out_shape=jax.ShapeDtypeStruct((16, 128, 8), jnp.bfloat16))(x)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(jax.ShapeDtypeStruct((16, 128), jnp.bfloat16)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
