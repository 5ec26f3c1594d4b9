# pallas-lsp example: invalid
# note: The interpret flag is the wrong way round: interpreted on accelerators, compiled on a CPU host.
# raises: ValueError: Only interpret mode is supported on CPU backend\.
# fix: Interpret it where it runs on a CPU (interpret=interpret or jax.default_backend() == "cpu")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ON_ACCELERATOR = jax.default_backend() != "cpu"


def negate_kernel(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


def negate(x, interpret):
    return pl.pallas_call(negate_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),  # error
                          interpret=interpret)(x)


def main():
    print(negate(jnp.ones((8, 128), jnp.float32), interpret=ON_ACCELERATOR)[0, :4])


if __name__ == "__main__":
    main()
