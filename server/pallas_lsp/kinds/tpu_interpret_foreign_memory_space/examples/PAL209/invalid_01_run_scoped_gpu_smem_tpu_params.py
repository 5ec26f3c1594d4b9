# pallas-lsp example: invalid
# note: A run_scoped buffer in Mosaic GPU SMEM, in a kernel run with TPU interpret params.
# raises: KeyError: MemorySpace\.SMEM
# fix: Allocate it in TPU memory (pltpu.VMEM)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    def scope(tmp):
        tmp[...] = x_ref[...] * 4.0
        o_ref[...] = tmp[...]

    pl.run_scoped(scope, plgpu.SMEM((8, 128), jnp.float32))  # error


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         interpret=pltpu.InterpretParams())(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
