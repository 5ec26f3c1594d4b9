# pallas-lsp example: invalid
# note: Whole-array BlockSpecs (the block is the caller's array shape, the index map returns zeros) pass the BlockSpec check, so the scalar-prefetch error is next.
# raises: NotImplementedError: Scalar arguments not \(yet\) supported on GPU
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def kernel(idx_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] - 1.0


@jax.jit
def step(idx, x):
    spec = pl.BlockSpec((4, 256), lambda i, idx_ref: (0, 0))
    grid_spec = pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(1,),  # error
                                             in_specs=[spec], out_specs=spec)
    return pl.pallas_call(kernel, grid_spec=grid_spec, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(idx, x)


def main():
    x = jnp.zeros((4, 256), jnp.float32)
    with plgpu.force_gpu_interpret_mode():
        print(step(jnp.arange(4, dtype=jnp.int32), x)[0, :2])


if __name__ == "__main__":
    main()
