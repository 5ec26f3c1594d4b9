# pallas-lsp example: invalid
# note: A helper nested in the launching function builds the output's BlockSpec from the space it is given (pltpu.VMEM) under GPU interpret params.
# raises: KeyError: VMEM
# fix: Interpret it as a TPU kernel (interpret=pltpu.InterpretParams())
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
        out_specs=spec_in(pltpu.VMEM),  # error
        interpret=plgpu.InterpretGPUParams(),
    )(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
