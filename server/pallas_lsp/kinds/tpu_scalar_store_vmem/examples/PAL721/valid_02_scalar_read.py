# pallas-lsp example: valid
# note: One element is read (a scalar load from VMEM lowers).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def scale_kernel(x_ref, o_ref):
    s = x_ref[0, 7]
    o_ref[...] = x_ref[...] * s


def launch(x):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 256), jnp.float32),
    )(x)


def inputs():
    return (jnp.arange(8 * 256, dtype=jnp.float32).reshape(8, 256) / 512.0,)



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
