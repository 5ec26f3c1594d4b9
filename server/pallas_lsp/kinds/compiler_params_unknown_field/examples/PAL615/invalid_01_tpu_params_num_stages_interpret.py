# pallas-lsp example: invalid
# note: A Triton pipelining knob passed to pltpu.CompilerParams; building the params fails even in interpret mode.
# raises: TypeError: CompilerParams\.__init__\(\) got an unexpected keyword argument 'num_stages'
# fix: Remove `num_stages=` (not a field of this params class)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3


def scale(x):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(2,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), num_stages=2),  # error
        interpret=True,
    )(x)


def main():
    print(scale(jnp.ones((16, 128), jnp.int32)))


if __name__ == "__main__":
    main()
