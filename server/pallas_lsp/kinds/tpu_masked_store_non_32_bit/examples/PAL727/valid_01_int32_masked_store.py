# pallas-lsp example: valid
# note: The same masked store on int32 data.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def _clamp_into(ref, x, limit):
    pltpu.store(ref, jnp.full_like(x, limit), mask=x > limit)


def clamp_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x
    _clamp_into(o_ref, x, 100)


def launch(x):
    return pl.pallas_call(
        clamp_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 256), jnp.int32),
    )(x)


def inputs():
    return (jnp.arange(16 * 256, dtype=jnp.int32).reshape(16, 256) % 300,)



def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    args = inputs()
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(*args).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
