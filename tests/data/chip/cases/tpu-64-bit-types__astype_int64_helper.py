# case: family=tpu-64-bit-types chip=raises cpu=raises interp=clean
# intent: with jax_enable_x64 on, a helper widens float32 scores to int64 buckets inside the kernel.
# grounded: jax/_src/pallas/mosaic/lowering.py _convert_element_type_lowering_rule ('64-bit types are not supported')
import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402

INTERPRET = False


def bucket(v):
    return jnp.floor(v * 4.0).astype(jnp.int64)  # FAIL


def bucket_kernel(x_ref, o_ref):
    o_ref[...] = bucket(x_ref[...]).astype(jnp.int32)


def launch(x):
    return pl.pallas_call(
        bucket_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, jnp.int32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128) / 512.0,)


def reference(x):
    import numpy as np
    return np.floor(x * 4.0).astype(np.int32)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
