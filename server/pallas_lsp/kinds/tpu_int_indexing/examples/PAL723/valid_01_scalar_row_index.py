# pallas-lsp example: valid
# note: The leading dim is indexed with a scalar, the grid position.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def pick_kernel(x_ref, o_ref):
    k = pl.program_id(0)
    o_ref[...] = x_ref[k] * 2.0


def launch(x):
    return pl.pallas_call(
        pick_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        grid=(4,),
        in_specs=[pl.BlockSpec((4, 8, 128), lambda i: (0, 0, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (0, 0)),
    )(x)


def inputs():
    return (jnp.arange(4 * 8 * 128, dtype=jnp.float32).reshape(4, 8, 128),)



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
