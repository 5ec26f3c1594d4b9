# pallas-lsp example: valid
# note: The flag the right way round: interpreted exactly on CPU hosts.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ON_CPU = jax.default_backend() == "cpu"


def negate_kernel(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


def negate(x, interpret):
    return pl.pallas_call(negate_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=interpret)(x)


def main():
    print(negate(jnp.ones((8, 128), jnp.float32), interpret=ON_CPU)[0, :4])


if __name__ == "__main__":
    main()
