# pallas-lsp example: invalid
# note: The scratch buffer is passed to pallas_call beside a PrefetchScalarGridSpec.
# raises: ValueError: If `grid_spec` is specified, then `scratch_shapes` must be `\(\)`
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS = pl.BlockSpec((8, 128), lambda i, ids: (ids[i], 0))


@functools.partial(
    pl.pallas_call,
    out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
    grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(2,), in_specs=[ROWS], out_specs=ROWS),
    scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],  # error
    interpret=True,
)
def gather(ids_ref, x_ref, o_ref, buf_ref):
    buf_ref[...] = x_ref[...]
    o_ref[...] = buf_ref[...]


if __name__ == "__main__":
    print(gather(jnp.array([1, 0], jnp.int32), jnp.ones((16, 128), jnp.float32))[0, :2])
