# pallas-lsp example: invalid
# note: A DMA writes into a strided view of an HBM output.
# raises: NotImplementedError: Strided slices of references are unsupported\.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def scatter_rows_kernel(x_ref, init_hbm, o_hbm, buf, sem):
    del init_hbm  # (aliased to o_hbm: its zeros fill the odd rows)
    buf[...] = x_ref[...] * 2
    copy = pltpu.make_async_copy(buf, o_hbm.at[pl.ds(0, 8, stride=2), :], sem)  # error
    copy.start()
    copy.wait()


def launch(x):
    return pl.pallas_call(
        scatter_rows_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.bfloat16),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.bfloat16), pltpu.SemaphoreType.DMA(())],
        input_output_aliases={1: 0},
    )(x, jnp.zeros((16, 128), jnp.bfloat16))


def inputs():
    return (jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128).astype(jnp.bfloat16),)



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
