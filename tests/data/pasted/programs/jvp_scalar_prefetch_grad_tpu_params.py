import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

def pick(idx_ref, v_ref, o_ref):
    o_ref[...] = v_ref[...] * idx_ref[0].astype(jnp.float32)

def picked(idx, v):
    return pl.pallas_call(
        pick,
        out_shape=jax.ShapeDtypeStruct(v.shape, v.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1, grid=(1,),
            in_specs=[pl.BlockSpec((8, 128), lambda i, idx: (0, 0))],
            out_specs=pl.BlockSpec((8, 128), lambda i, idx: (0, 0))),
        interpret=pltpu.InterpretParams(),
    )(idx, v)

idx = jnp.array([3], jnp.int32)
print(jax.grad(lambda v: picked(idx, v).sum())(jnp.ones((8, 128))))
