# pallas-lsp example: valid
# note: A mesh of one device: the jit runs on one device, there is nothing to partition.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P


def exp_kernel(x_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...])


@functools.partial(jax.jit, static_argnames=("scale",))
def scaled_exp(x, scale):
    return pl.pallas_call(exp_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x) * scale


def main():
    mesh = jax.make_mesh((1,), ("data",), axis_types=(AxisType.Auto,), devices=jax.devices()[:1])
    x = jax.device_put(jnp.zeros((64, 128), jnp.float32), NamedSharding(mesh, P("data")))
    scaled_exp.trace(x, scale=2.0).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
