import jax
from jax.experimental import pallas as pl

from .helpers import grid_barrier

__all__ = ["launch"]


def _kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]
    grid_barrier()


def launch(x, interpret=False):
    return pl.pallas_call(_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=interpret)(x)
