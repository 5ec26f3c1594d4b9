import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def signal_kernel(x_ref, o_ref):
    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
    pl.semaphore_signal(sem)
    o_ref[...] = x_ref[...]


def build_signal(shape, dtype, interpret):
    return pl.pallas_call(signal_kernel, out_shape=jax.ShapeDtypeStruct(shape, dtype), interpret=interpret)
