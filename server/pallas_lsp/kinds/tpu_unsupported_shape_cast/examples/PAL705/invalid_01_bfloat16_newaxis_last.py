# pallas-lsp example: invalid
# note: x[:, :, None] on a bfloat16 tile before a broadcast (chip case cases/tpu-unsupported-shape-cast__bf16_newaxis_minor.py).
# raises: MosaicError: infer-vector-layout: unsupported shape cast
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def outer_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = jnp.broadcast_to(x[:, :, None], (16, 128, 4))  # error


def launch(x):
    return pl.pallas_call(outer_kernel, out_shape=jax.ShapeDtypeStruct((16, 128, 4), x.dtype))(x)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(jax.ShapeDtypeStruct((16, 128), jnp.bfloat16)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
