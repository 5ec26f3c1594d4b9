import jax
from jax.experimental import pallas as pl

from .deep import stage


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]
    stage(o_ref)


def build(shape, dtype, interpret=False):
    return pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct(shape, dtype), interpret=interpret)
