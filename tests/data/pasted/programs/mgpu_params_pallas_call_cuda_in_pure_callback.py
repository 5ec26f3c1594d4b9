import numpy as np
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

def plus_one(a_ref, b_ref):
    b_ref[...] = a_ref[...] + 1.0

def cuda_text_size(x):
    # Host-side check that the kernel still lowers for CUDA.
    lowered = jax.jit(lambda a: pl.pallas_call(
        plus_one, out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype),
        compiler_params=plgpu.CompilerParams(max_concurrent_steps=2),
    )(a)).trace(jnp.asarray(x)).lower(lowering_platforms=("cuda",))
    return np.int32(len(lowered.as_text()))

size = jax.jit(lambda x: jax.pure_callback(cuda_text_size, jax.ShapeDtypeStruct((), jnp.int32), x))
print(size(jnp.zeros((512,), jnp.float32)))
