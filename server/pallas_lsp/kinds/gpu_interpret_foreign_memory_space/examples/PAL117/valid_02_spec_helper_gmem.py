# pallas-lsp example: valid
# note: The same helper given the GPU interpreter's own space (plgpu.GMEM) runs under a forced GPU interpret mode.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def scalar_spec(space=pltpu.SMEM):
    whole = None
    return pl.BlockSpec(whole, memory_space=space)


def offset_kernel(s_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] + s_ref[0]


def main():
    offset = jnp.full((1,), 2.0, jnp.float32)
    x = jnp.ones((8, 128), jnp.float32)
    with plgpu.force_gpu_interpret_mode():
        out = pl.pallas_call(
            offset_kernel,
            out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
            in_specs=[scalar_spec(plgpu.GMEM), pl.BlockSpec()],
        )(offset, x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
