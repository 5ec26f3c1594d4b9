# pallas-lsp example: invalid
# note: Only the output BlockSpec is given, and it moves with the grid; GPU interpret mode forced.
# raises: AssertionError: ^$
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(o_ref):
    o_ref[...] = jnp.full(o_ref.shape, 3.0, o_ref.dtype)


def main():
    with plgpu.force_gpu_interpret_mode():
        fill = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((256,), jnp.float32), grid=(2,),
                              out_specs=pl.BlockSpec((128,), lambda i: (i,)))  # error
        print(fill()[:2])


if __name__ == "__main__":
    main()
