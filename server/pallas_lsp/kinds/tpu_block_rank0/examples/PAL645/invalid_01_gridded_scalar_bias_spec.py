# pallas-lsp example: invalid
# note: A 0-d bias given its own BlockSpec with block shape () on a gridded launch: the block stays in VMEM.
# raises: ValueError: The Pallas TPU lowering currently supports only blocks of rank >= 1\.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def add_bias_kernel(x_ref, b_ref, o_ref):
    o_ref[...] = x_ref[...] + b_ref[...]


def launch(x, b):
    return pl.pallas_call(
        add_bias_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 16,),
        in_specs=[pl.BlockSpec((16, 256), lambda i: (i, 0)),
                  pl.BlockSpec((), lambda i: ())],  # error
        out_specs=pl.BlockSpec((16, 256), lambda i: (i, 0)),
    )(x, b)


ARGS = (jax.ShapeDtypeStruct((64, 256), jnp.bfloat16), jax.ShapeDtypeStruct((), jnp.bfloat16))


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(*ARGS).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
