# pallas-lsp example: invalid
# note: Under plgpu.kernel even an unused get_global fails; TPU interpret params fail on GMEM first.
# raises: KeyError: gmem
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def body(x_ref, o_ref):
    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)  # error
    o_ref[...] = x_ref[...]


def main():
    k = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32),
                     interpret=pltpu.InterpretParams())
    print(k(jnp.zeros((128,), jnp.float32)))


if __name__ == "__main__":
    main()
