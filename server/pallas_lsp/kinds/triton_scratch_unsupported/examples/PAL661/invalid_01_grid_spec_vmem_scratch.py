# pallas-lsp example: invalid
# note: Scratch given inside a pl.GridSpec of a pallas_call lowered for CUDA (Triton, no compiler params).
# raises: NotImplementedError: scratch memory not implemented in the Triton backend
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

ROWS, COLS = 64, 32


def row_sums_kernel(x_ref, o_ref, partial_ref):
    partial_ref[...] = x_ref[...] * 2.0
    o_ref[...] = partial_ref[...]


def doubled(x):
    return pl.pallas_call(
        row_sums_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid_spec=pl.GridSpec(
            grid=(x.shape[0] // 16,),
            in_specs=[pl.BlockSpec((16, COLS), lambda i: (i, 0))],
            out_specs=pl.BlockSpec((16, COLS), lambda i: (i, 0)),
            scratch_shapes=(pltpu.VMEM((16, COLS), jnp.float32),),  # error
        ),
    )(x)


def main():
    gpu = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                       abstract_device=AbstractDevice(device_kind="NVIDIA H100", num_cores=132, platform="gpu"))
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    with use_abstract_mesh(gpu):
        print(jax.jit(doubled).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
