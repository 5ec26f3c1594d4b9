# pallas-lsp example: invalid
# note: A VMEM limit computed with true division (/) is a float, even when it divides evenly.
# raises: ValueError: vmem_limit_bytes must be an int: provided with a <class 'float'>.
# fix: Pass the limit as an int: int(VMEM_BYTES / 2)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

VMEM_BYTES = 128 * 1024 * 1024


def tanh_kernel(x_ref, o_ref):
    o_ref[...] = jnp.tanh(x_ref[...])


def tanh(x):
    params = pltpu.CompilerParams(vmem_limit_bytes=VMEM_BYTES / 2)  # error
    return pl.pallas_call(
        tanh_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 128,),
        in_specs=[pl.BlockSpec((128, 256), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((128, 256), lambda i: (i, 0)),
        compiler_params=params,
    )(x)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(tanh).trace(jax.ShapeDtypeStruct((512, 256), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
