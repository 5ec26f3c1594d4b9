# pallas-lsp example: valid
# note: The nested helper given plgpu.GMEM (the GPU interpreter's own space) runs under GPU interpret params.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def negate_kernel(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


def main():
    def spec_in(space):
        return pl.BlockSpec(memory_space=space)

    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(
        negate_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        out_specs=spec_in(plgpu.GMEM),
        interpret=plgpu.InterpretGPUParams(),
    )(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
