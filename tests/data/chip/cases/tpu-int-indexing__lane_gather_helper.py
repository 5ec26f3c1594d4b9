# case: family=tpu-int-indexing chip=raises cpu=raises interp=clean
# intent: a helper reverses the 128 lanes of a bf16 tile by indexing the Ref with an index vector x_ref[:, 127 - lax.iota(...)].
# grounded: jax/_src/pallas/mosaic/lowering.py _canonicalize_transforms_to_indexer ("Cannot do int indexing on TPU")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def _reversed_lanes(ref):
    lanes = 127 - jax.lax.iota(jnp.int32, 128)
    return ref[:, lanes]  # FAIL


def flip_kernel(x_ref, o_ref):
    o_ref[...] = _reversed_lanes(x_ref)


def launch(x):
    return pl.pallas_call(
        flip_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.bfloat16),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128).astype(jnp.bfloat16),)


def reference(x):
    return x[:, ::-1]


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
