# pallas-lsp example: invalid
# note: A TPU kernel keeps a small operand in SMEM; debugged under a forced GPU interpret mode.
# raises: KeyError: SMEM
# fix: Drop the TPU memory space (the GPU interpreter keeps operands in GMEM)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def scale_kernel(s_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * s_ref[0]


def main():
    scale = jnp.full((1,), 3.0, jnp.float32)
    x = jnp.ones((8, 128), jnp.float32)
    with plgpu.force_gpu_interpret_mode():
        out = pl.pallas_call(
            scale_kernel,
            out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
            in_specs=(
                pl.BlockSpec(memory_space=pltpu.SMEM),  # error
                pl.BlockSpec(),
            ),
        )(scale, x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
