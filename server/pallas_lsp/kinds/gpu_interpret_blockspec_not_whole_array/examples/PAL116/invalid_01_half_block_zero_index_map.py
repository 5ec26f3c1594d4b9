# pallas-lsp example: invalid
# note: A block of half the operand's rows with an index map of literal zeros: not a trivial window, though the map does not move.
# raises: AssertionError: ^$
# fix: Interpret with interpret=True (the generic interpreter supports blocking)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

ROWS = 16


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def first_rows(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((ROWS // 2, 128), x.dtype), grid=(1,),
                          in_specs=[pl.BlockSpec((ROWS // 2, 128), lambda i: (0, 0))],  # error
                          out_specs=pl.BlockSpec((ROWS // 2, 128), lambda i: (0, 0)),
                          interpret=plgpu.InterpretGPUParams())(x)


def main():
    x = jnp.ones((ROWS, 128), jnp.float32)
    print(first_rows(x)[0, :2])


if __name__ == "__main__":
    main()
