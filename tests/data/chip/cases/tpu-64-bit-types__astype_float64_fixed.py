# case: family=tpu-64-bit-types chip=clean cpu=lowers interp=clean
# intent: the fixed program of dtype__astype_float64: the in-kernel cast to float64 replaced by float32 (x64 still on; the sum is computed in float32).
# grounded: jax/_src/pallas/mosaic/lowering.py _convert_element_type_lowering_rule
import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402

INTERPRET = False


def precise_sum_kernel(x_ref, o_ref):
    x64 = x_ref[...].astype(jnp.float32)
    s = jnp.sum(x64, axis=1, keepdims=True)
    o_ref[...] = jnp.broadcast_to(s.astype(jnp.float32), o_ref.shape)


def launch(x):
    return pl.pallas_call(
        precise_sum_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 7.0,)


def reference(x):
    import numpy as np
    return np.broadcast_to(x.astype(np.float64).sum(1, keepdims=True), x.shape).astype(np.float32)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
