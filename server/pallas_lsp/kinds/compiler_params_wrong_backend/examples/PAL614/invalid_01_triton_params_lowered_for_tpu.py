# pallas-lsp example: invalid
# note: Triton compiler params left on a gridded pallas_call that is lowered for TPU (jax 0.12: the Triton rule is registered for gpu).
# raises: ValueError: Compiler params for platform gpu cannot be used for tpu lowering\.
# fix: Remove `compiler_params=` (another backend's params; this launch's lowering takes none of them)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plt
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
        compiler_params=plt.CompilerParams(num_warps=8),  # error
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
