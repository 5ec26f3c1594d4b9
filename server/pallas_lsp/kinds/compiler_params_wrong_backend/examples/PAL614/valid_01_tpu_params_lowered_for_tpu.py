# pallas-lsp example: valid
# note: The same launch with the TPU params class, which the TPU lowering takes.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def relu_kernel(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0)


def launch(x):
    return pl.pallas_call(
        relu_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 16,),
        in_specs=[pl.BlockSpec((16, 256), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((16, 256), lambda i: (i, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
    )(x)


ARGS = (jax.ShapeDtypeStruct((64, 256), jnp.bfloat16),)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(*ARGS).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
