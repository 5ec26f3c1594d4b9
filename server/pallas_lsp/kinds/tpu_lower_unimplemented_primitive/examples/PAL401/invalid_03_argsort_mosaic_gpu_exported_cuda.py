# pallas-lsp example: invalid
# note: jnp.argsort in a Mosaic GPU kernel, exported for CUDA.
# raises: NotImplementedError: Unimplemented primitive in Pallas Mosaic GPU lowering: sort
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_ref, o_ref):
    o_ref[...] = jnp.argsort(x_ref[...]).astype(jnp.float32)  # error


def rank(x):
    return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def main():
    exported = jax.export.export(jax.jit(rank), platforms=["cuda"])(jax.ShapeDtypeStruct((128,), jnp.float32))
    print(exported.platforms)


if __name__ == "__main__":
    main()
