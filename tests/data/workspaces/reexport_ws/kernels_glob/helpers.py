from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def grid_barrier():
    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
    pl.semaphore_signal(sem)
    pl.semaphore_wait(sem)
