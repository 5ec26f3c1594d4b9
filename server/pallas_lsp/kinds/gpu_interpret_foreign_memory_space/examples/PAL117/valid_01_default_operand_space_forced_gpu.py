# pallas-lsp example: valid
# note: The same kernel with its operands in the default memory space runs under the forced GPU interpreter.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def scale_kernel(s_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * s_ref[0]


def main():
    scale = jnp.full((1,), 3.0, jnp.float32)
    x = jnp.ones((8, 128), jnp.float32)
    with plgpu.force_gpu_interpret_mode():
        out = pl.pallas_call(
            scale_kernel,
            out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
            in_specs=(pl.BlockSpec(), pl.BlockSpec()),
        )(scale, x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
