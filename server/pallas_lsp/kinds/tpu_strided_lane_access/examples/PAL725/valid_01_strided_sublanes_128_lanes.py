# pallas-lsp example: valid
# note: The stride is on the sublane dim of a Ref whose last dim is 128 (a TPU v5e compiles strided sublane reads of 128-lane Refs; with 256 lanes it refused them).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def _odd_rows(ref):
    return ref[:, pl.ds(1, 8, stride=2), :]


def odd_kernel(x_ref, o_ref):
    o_ref[...] = _odd_rows(x_ref) + 7


def launch(x):
    return pl.pallas_call(
        odd_kernel,
        out_shape=jax.ShapeDtypeStruct((2, 8, 128), jnp.int32),
    )(x)


def inputs():
    return (jnp.arange(2 * 16 * 128, dtype=jnp.int32).reshape(2, 16, 128),)



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
