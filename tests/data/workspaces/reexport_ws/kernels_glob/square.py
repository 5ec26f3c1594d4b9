import jax
from jax.experimental import pallas as pl

from .helpers import grid_barrier


def square_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * x_ref[...]
    grid_barrier()


def square(x, interpret=False):
    return pl.pallas_call(square_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=interpret)(x)
