# pallas-lsp example: valid
# note: The body takes the one input and the output.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def body(x_ref, o_ref):
    pltpu.sync_copy(x_ref, o_ref)


def run(x):
    mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)
    return pl.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), mesh=mesh)(x)


if __name__ == "__main__":
    print(jax.jit(run).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32)).jaxpr)
