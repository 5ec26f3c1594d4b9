# case: family=tpu-scalar-store-vmem chip=raises cpu=raises interp=clean
# intent: a helper writes the sum of a (16, 256) f32 tile into o_ref[1, 3] (a scalar store into a VMEM output).
# grounded: jax/_src/pallas/mosaic/lowering.py _masked_swap_lowering_rule ("Cannot store scalars to VMEM")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def _put(ref, row, col, value):
    ref[row, col] = value  # FAIL


def total_kernel(x_ref, o_ref):
    o_ref[...] = jnp.zeros((8, 128), jnp.float32)
    _put(o_ref, 1, 3, jnp.sum(x_ref[...]))


def launch(x):
    return pl.pallas_call(
        total_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.cos(jnp.arange(16 * 256, dtype=jnp.float32).reshape(16, 256)),)


def reference(x):
    import numpy as np
    out = np.zeros((8, 128), np.float32)
    out[1, 3] = np.asarray(x).sum()
    return out


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
