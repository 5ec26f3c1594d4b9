# pallas-lsp example: invalid
# note: A RefUnion of two SMEM buffers as pallas_call scratch, GPU interpret params.
# raises: NotImplementedError: `RefUnion` is not supported as a `pallas_call` scratch shape in interpret mode
# fix: Launch it with plgpu.kernel, which allocates a RefUnion as kernel scratch (scratch_types=; its operands stay in GMEM)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref, shared):
    first, _ = shared
    first[...] = x_ref[...] + 2.0
    o_ref[...] = first[...]


def main():
    x = jnp.ones((64,), jnp.float32)
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        scratch_shapes=[plgpu.RefUnion(plgpu.SMEM((64,), jnp.float32),  # error
                                       plgpu.SMEM((64,), jnp.float32))],
        interpret=plgpu.InterpretGPUParams(),
    )(x)
    print(out[:2])


if __name__ == "__main__":
    main()
