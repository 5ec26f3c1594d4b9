# pallas-lsp example: valid
# note: The clean twin of invalid_01: the kernel runs inside jax.shard_map (manual over every mesh axis).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def add_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = a_ref[...] + b_ref[...]


def add(a, b):
    return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype))(a, b)


def residual(a, b):
    return add(a, b) * 0.5


def main():
    jax.config.update("jax_num_cpu_devices", 4)
    mesh = jax.make_mesh((4,), ("model",))
    everywhere = NamedSharding(mesh, P())
    per_device = jax.shard_map(residual, mesh=mesh, in_specs=(P(), P()), out_specs=P(), check_vma=False)
    step = jax.jit(per_device, in_shardings=(everywhere, everywhere), out_shardings=everywhere)
    a = jnp.ones((16, 256), jnp.bfloat16)
    step.trace(a, a).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
