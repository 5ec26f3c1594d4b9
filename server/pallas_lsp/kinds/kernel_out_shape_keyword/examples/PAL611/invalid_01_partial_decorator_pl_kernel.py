# pallas-lsp example: invalid
# note: A pl.kernel decorator built by functools.partial keeps pallas_call's out_shape= keyword.
# raises: TypeError: kernel\(\) got an unexpected keyword argument 'out_shape'
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


@functools.partial(pl.kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),  # error
                   mesh=pltpu.create_tensorcore_mesh("core", num_cores=1))
def copy(x_hbm, o_hbm):
    pltpu.sync_copy(x_hbm, o_hbm)


if __name__ == "__main__":
    print(jax.jit(copy).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32)).jaxpr)
