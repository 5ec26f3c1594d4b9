# case: family=tpu-matmul-unsigned chip=raises cpu=raises interp=clean
# intent: int32 hash codes cast to uint32 inside the kernel, then `@` with a uint32 (128, 128) mask (uint32 result).
# grounded: jax/_src/pallas/mosaic/lowering.py _dot_general_lowering_rule ("Unsigned integer dtype uint32 is not supported for dot_general")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def hash_kernel(h_ref, m_ref, o_ref):
    h = h_ref[...].astype(jnp.uint32)
    m = m_ref[...].astype(jnp.uint32)
    o_ref[...] = (h @ m).astype(jnp.int32)  # FAIL


def launch(h, m):
    return pl.pallas_call(
        hash_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.int32),
        interpret=INTERPRET,
    )(h, m)


def inputs():
    h = jnp.arange(8 * 128, dtype=jnp.int32).reshape(8, 128) % 97
    m = jnp.arange(128 * 128, dtype=jnp.int32).reshape(128, 128) % 3
    return (h, m)


def reference(h, m):
    import numpy as np
    return (np.asarray(h, np.int64) @ np.asarray(m, np.int64)).astype(np.int32)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
