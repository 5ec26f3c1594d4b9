# pallas-lsp example: invalid
# note: The output BlockSpec, in the launch's grid spec, names TPU VMEM; the kernel runs under GPU interpret params.
# raises: KeyError: VMEM
# fix: Drop the TPU memory space (the GPU interpreter keeps operands in GMEM)
# fix: Interpret it as a TPU kernel (interpret=pltpu.InterpretParams())
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def negate_kernel(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


def main():
    x = jnp.ones((16, 128), jnp.float32)
    layout = pl.GridSpec(
        grid=(1,),
        in_specs=[pl.BlockSpec((16, 128), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((16, 128), lambda i: (0, 0),
                               memory_space=pltpu.VMEM),  # error
    )
    out = pl.pallas_call(negate_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         grid_spec=layout, interpret=plgpu.InterpretGPUParams())(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
