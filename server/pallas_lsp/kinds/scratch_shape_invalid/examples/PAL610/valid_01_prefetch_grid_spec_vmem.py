# pallas-lsp example: valid
# note: Both scratch buffers described as VMEM allocations.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def gather_kernel(ids_ref, x_ref, o_ref, acc_ref, tmp_ref):
    acc_ref[...] = x_ref[...]
    o_ref[...] = acc_ref[...]


def gather(ids, x):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1, grid=(2,),
        in_specs=[pl.BlockSpec((8, 128), lambda i, ids: (ids[i], 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i, ids: (i, 0)),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.VMEM((8, 128), jnp.float32)])
    return pl.pallas_call(gather_kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
                          grid_spec=grid_spec, interpret=True)(ids, x)


if __name__ == "__main__":
    print(gather(jnp.array([1, 0], jnp.int32), jnp.ones((16, 128), jnp.float32))[0, :4])
