# pallas-lsp example: invalid
# note: lax.dot_general with a different precision per operand, in a TPU kernel on a grid.
# raises: NotImplementedError: Per-operand dot precision unsupported
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def mm_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = lax.dot_general(x_ref[...], w_ref[...], (((1,), (0,)), ((), ())),  # error
                                 precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT))


def matmul(x, w):
    return pl.pallas_call(
        mm_kernel,
        grid=(2,),
        in_specs=[pl.BlockSpec((16, 128), lambda i: (i, 0)), pl.BlockSpec((128, 128), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((16, 128), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
    )(x, w)


def main():
    x = jnp.ones((32, 128), jnp.float32)
    w = jnp.ones((128, 128), jnp.float32)
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(matmul).trace(x, w).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
