# pallas-lsp example: invalid
# note: A replicated P() still puts the jit on the mesh's 4 devices; the launch is in a helper.
# raises: NotImplementedError: Mosaic kernels cannot be automatically partitioned\. Please wrap the call in a shard_map\.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def add_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = a_ref[...] + b_ref[...]


def add(a, b):
    return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype))(a, b)  # error


def residual(a, b):
    return add(a, b) * 0.5


def main():
    # A host with several TPU devices, on a CPU-only machine: 4 CPU devices, the jit lowered for TPU.
    jax.config.update("jax_num_cpu_devices", 4)
    everywhere = NamedSharding(jax.make_mesh((4,), ("model",)), P())
    step = jax.jit(residual, in_shardings=(everywhere, everywhere), out_shardings=everywhere)
    a = jnp.ones((16, 256), jnp.bfloat16)
    step.trace(a, a).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
