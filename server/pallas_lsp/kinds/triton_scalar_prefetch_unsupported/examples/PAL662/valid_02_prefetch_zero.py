# pallas-lsp example: valid
# note: PrefetchScalarGridSpec(num_scalar_prefetch=0) has no index operands: Triton lowers it.
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def main():
    gpu = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                       abstract_device=AbstractDevice(device_kind="NVIDIA H100", num_cores=132, platform="gpu"))
    spec = pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=0, grid=(2,),
                                        in_specs=[pl.BlockSpec((128,), lambda i: (i,))],
                                        out_specs=pl.BlockSpec((128,), lambda i: (i,)))
    copy = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct((256,), jnp.float32), grid_spec=spec)
    with use_abstract_mesh(gpu):
        print(jax.jit(copy).trace(jax.ShapeDtypeStruct((256,), jnp.float32))
              .lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
