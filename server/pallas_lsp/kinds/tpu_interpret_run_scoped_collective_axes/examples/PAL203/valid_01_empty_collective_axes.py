# pallas-lsp example: valid
# note: collective_axes=() (empty) is a per-core scratch, which the TPU interpreter runs.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    def scope(tmp):
        tmp[...] = x_ref[...] + 4.0
        o_ref[...] = tmp[...]

    pl.run_scoped(scope, pltpu.VMEM((8, 128), jnp.float32), collective_axes=())


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         interpret=pltpu.InterpretParams())(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
