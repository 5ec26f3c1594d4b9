# pallas-lsp example: valid
# note: The clean twin of invalid_01: 128-wide blocks over the 96 columns (the edge is masked).
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def row_scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3


def row_scale(x):
    rows, cols = x.shape
    return pl.pallas_call(
        row_scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(rows, pl.cdiv(cols, 128)),
        in_specs=[pl.BlockSpec((None, 128), lambda r, c: (r, c))],
        out_specs=pl.BlockSpec((None, 128), lambda r, c: (r, c)),
    )(x)


def main():
    gpu = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                       abstract_device=AbstractDevice(device_kind="NVIDIA H100", num_cores=132, platform="gpu"))
    x = jax.ShapeDtypeStruct((16, 96), jnp.bfloat16)
    with use_abstract_mesh(gpu):
        print(jax.jit(row_scale).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
