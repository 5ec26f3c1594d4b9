# case: family=tpu-strided-lane-access chip=raises cpu=lowers interp=clean
# intent: interleave: store a (8, 64) f32 tile into the even lanes of an (8, 128) output with o_ref[:, pl.ds(0, 64, stride=2)] = x.
# grounded: Mosaic (libtpu) strided store rule, "Stride on last dim is not 1" for loads; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def interleave_kernel(x_ref, o_ref):
    o_ref[...] = jnp.zeros((8, 128), jnp.float32)
    o_ref[:, pl.ds(0, 64, stride=2)] = x_ref[...]  # FAIL


def launch(x):
    return pl.pallas_call(
        interleave_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(8 * 64, dtype=jnp.float32).reshape(8, 64),)


def reference(x):
    import numpy as np
    out = np.zeros((8, 128), np.float32)
    out[:, 0::2] = x
    return out


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
