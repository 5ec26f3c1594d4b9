# pallas-lsp example: invalid
# note: Arguments jax.device_put to a sharding of an Auto-axes (2, 4) mesh make the jit span 8 devices.
# raises: NotImplementedError: Mosaic kernels cannot be automatically partitioned\. Please wrap the call in a shard_map\.
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
    return pl.pallas_call(exp_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x) * scale  # error


def main():
    # A host with several TPU devices, on a CPU-only machine: 8 CPU devices, the jit lowered for TPU.
    jax.config.update("jax_num_cpu_devices", 8)
    mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Auto, AxisType.Auto))
    x = jax.device_put(jnp.zeros((64, 128), jnp.float32), NamedSharding(mesh, P("data", "model")))
    scaled_exp.trace(x, scale=2.0).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
