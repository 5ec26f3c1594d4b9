# pallas-lsp example: invalid
# note: Exporting a Triton pallas_call for cuda on a host without a GPU (CI, a laptop); on a GPU host it works.
# raises: RuntimeError: No supported GPU devices found, please specify an abstract GPU device using AbstractDevice\.
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plt


def relu_kernel(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


relu = pl.pallas_call(relu_kernel, out_shape=jax.ShapeDtypeStruct((256,), jnp.float32),
                      compiler_params=plt.CompilerParams(num_warps=4))


def main():
    exported = jax.export.export(jax.jit(relu), platforms=["cuda"])(  # error
        jax.ShapeDtypeStruct((256,), jnp.float32))
    print(exported.platforms)


if __name__ == "__main__":
    main()
