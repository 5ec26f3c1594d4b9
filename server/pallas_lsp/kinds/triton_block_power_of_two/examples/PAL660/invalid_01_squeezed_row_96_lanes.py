# pallas-lsp example: invalid
# note: A BlockSpec with a squeezed row and 96 columns (96 elements), bf16, lowered for CUDA (Triton).
# raises: ValueError: The Pallas Triton lowering currently requires that all operations have array arguments and results whose size is a power of 2\. Encountered an array of shape \(96,\)
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

HEAD_DIM = 96


def row_scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3


def row_scale(x):
    rows = x.shape[0]
    return pl.pallas_call(
        row_scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(rows,),
        in_specs=[pl.BlockSpec((None, HEAD_DIM), lambda r: (r, 0))],  # error
        out_specs=pl.BlockSpec((None, HEAD_DIM), lambda r: (r, 0)),
    )(x)


def main():
    gpu = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                       abstract_device=AbstractDevice(device_kind="NVIDIA H100", num_cores=132, platform="gpu"))
    x = jax.ShapeDtypeStruct((16, HEAD_DIM), jnp.bfloat16)
    with use_abstract_mesh(gpu):
        print(jax.jit(row_scale).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
