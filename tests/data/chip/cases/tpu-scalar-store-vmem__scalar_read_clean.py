# case: family=tpu-scalar-store-vmem chip=clean cpu=lowers interp=clean
# intent: the clean twin: read one element x_ref[0, 7] of a VMEM tile as a scalar and scale the tile by it (a scalar load, not a store).
# grounded: _load_lowering_rule loads a (1, 1) vector and extracts it; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def scale_kernel(x_ref, o_ref):
    s = x_ref[0, 7]  # DECOY
    o_ref[...] = x_ref[...] * s


def launch(x):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 256), jnp.float32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(8 * 256, dtype=jnp.float32).reshape(8, 256) / 512.0,)


def reference(x):
    return x * x[0, 7]


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
