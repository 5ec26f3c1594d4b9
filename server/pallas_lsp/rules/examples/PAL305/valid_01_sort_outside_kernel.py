# pallas-lsp example: valid
# note: The sort in the wrapper, outside the kernel.
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def rank(x):
    return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))(jnp.sort(x))


def main():
    exported = jax.export.export(jax.jit(rank), platforms=["cuda"])(jax.ShapeDtypeStruct((128,), jnp.float32))
    print(exported.platforms)


if __name__ == "__main__":
    main()
