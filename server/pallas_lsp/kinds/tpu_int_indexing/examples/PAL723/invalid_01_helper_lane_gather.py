# pallas-lsp example: invalid
# note: A helper indexes the lanes with an iota-made index array.
# raises: ValueError: Cannot do int indexing on TPU
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def _reversed_lanes(ref):
    lanes = 127 - jax.lax.iota(jnp.int32, 128)
    return ref[:, lanes]  # error


def flip_kernel(x_ref, o_ref):
    o_ref[...] = _reversed_lanes(x_ref)


def launch(x):
    return pl.pallas_call(
        flip_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.bfloat16),
    )(x)


def inputs():
    return (jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128).astype(jnp.bfloat16),)



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
