# pallas-lsp example: invalid
# note: each grid step starts a copy of a 16-row pl.ds window into an 8-row VMEM buffer, then waits on it.
# raises: VerificationError: .*'tpu\.enqueue_dma' op DMA source and target shape mismatch\.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

ROWS = 8


def rows_kernel(x_hbm, o_ref, buf, sem):
    start = pl.program_id(0) * ROWS
    copy = pltpu.make_async_copy(x_hbm.at[pl.ds(start, 2 * ROWS), :], buf, sem)  # error
    copy.start()
    copy.wait()
    o_ref[...] = buf[...] * 2.0


def double_rows(x):
    return pl.pallas_call(
        rows_kernel,
        out_shape=jax.ShapeDtypeStruct((64, 256), jnp.float32),
        grid=(8,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((ROWS, 256), lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM((ROWS, 256), jnp.float32), pltpu.SemaphoreType.DMA(())],
    )(x)


def main():
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(double_rows).trace(jax.ShapeDtypeStruct((72, 256), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
