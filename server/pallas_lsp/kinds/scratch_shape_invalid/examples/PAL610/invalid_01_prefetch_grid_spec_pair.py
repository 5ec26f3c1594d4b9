# pallas-lsp example: invalid
# note: The grid spec's scratch written as a (shape, dtype) pair after a VMEM buffer: the pair flattens into ints.
# raises: AttributeError: 'int' object has no attribute 'get_ref_aval'
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
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), ((8, 128), jnp.float32)])  # error
    return pl.pallas_call(gather_kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
                          grid_spec=grid_spec, interpret=True)(ids, x)


if __name__ == "__main__":
    print(gather(jnp.array([1, 0], jnp.int32), jnp.ones((16, 128), jnp.float32))[0, :4])
