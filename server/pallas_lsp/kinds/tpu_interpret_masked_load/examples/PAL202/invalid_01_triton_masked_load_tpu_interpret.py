# pallas-lsp example: invalid
# note: plt.load with a mask binds the same generic load; TPU interpret params from a module constant.
# raises: NotImplementedError: masked load_p
# fix: Interpret with the generic interpreter (interpret=True runs masked loads)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import triton as plt

DEBUG_PARAMS = pltpu.InterpretParams()


def kernel(x_ref, o_ref):
    keep = jnp.arange(128)[None, :] < 100
    o_ref[...] = plt.load(x_ref, mask=jnp.broadcast_to(keep, (8, 128)), other=0.0)  # error


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         interpret=DEBUG_PARAMS)(x)
    print(out[0, 98:102])


if __name__ == "__main__":
    main()
