import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

SHAPE = (8, 128)


def double_into(x_ref, o_ref):
    def body(tmp):
        tmp[...] = x_ref[...] * 2.0
        o_ref[...] = tmp[...]

    return body


def kernel(x_ref, o_ref):
    pl.run_scoped(double_into(x_ref, o_ref), pltpu.VMEM(SHAPE, jnp.float32),
                  collective_axes="core")  # error


def main():
    x = jnp.ones(SHAPE, jnp.float32)
    debug = pltpu.InterpretParams()
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=debug)(x)
    print(out[0, :4])


if __name__ == "__main__":
    main()
