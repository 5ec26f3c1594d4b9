# pallas-lsp example: invalid
# note: The CPU platform is pinned, and the launcher's debug switch defaults to compiled.
# raises: ValueError: Only interpret mode is supported on CPU backend\.
# fix: Interpret it where it runs on a CPU (interpret=debug or jax.default_backend() == "cpu")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

jax.config.update("jax_platforms", "cpu")


def add_one_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def add_one(x, debug=False):
    return pl.pallas_call(add_one_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),  # error
                          interpret=debug)(x)


def main():
    print(add_one(jnp.zeros((8, 128), jnp.float32))[0, :4])


if __name__ == "__main__":
    main()
