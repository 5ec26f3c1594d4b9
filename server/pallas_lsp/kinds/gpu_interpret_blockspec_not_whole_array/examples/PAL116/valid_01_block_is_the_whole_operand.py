# pallas-lsp example: valid
# note: The same launch with a block that is the operand's whole shape (known from the caller's array) runs in the GPU interpreter.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

ROWS = 16


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def all_rows(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(1,),
                          in_specs=[pl.BlockSpec((ROWS, 128), lambda i: (0, 0))],
                          out_specs=pl.BlockSpec((ROWS, 128), lambda i: (0, 0)),
                          interpret=plgpu.InterpretGPUParams())(x)


def main():
    x = jnp.ones((ROWS, 128), jnp.float32)
    print(all_rows(x)[0, :2])


if __name__ == "__main__":
    main()
