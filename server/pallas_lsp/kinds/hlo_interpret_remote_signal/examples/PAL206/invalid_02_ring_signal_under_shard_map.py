# pallas-lsp example: invalid
# note: A ring signal in a kernel mapped over a device mesh, under interpret=True: the TPU interpreter simulates the devices.
# raises: NotImplementedError: Remote signal not implemented
# fix: Interpret it as a TPU kernel (interpret=pltpu.InterpretParams(), which simulates the devices of the shard_map)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import PartitionSpec as P


def kernel(x_ref, o_ref, sem):
    right = jax.lax.rem(jax.lax.axis_index("ring") + 1, jax.lax.axis_size("ring"))
    pl.semaphore_signal(sem, 1, device_id={"ring": right})  # error
    pl.semaphore_wait(sem, 1)
    o_ref[...] = x_ref[...] + 1.0


def ring_step(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          scratch_shapes=[pltpu.SemaphoreType.REGULAR], interpret=True)(x)


if __name__ == "__main__":
    mesh = jax.make_mesh((1,), ("ring",))
    step = jax.shard_map(ring_step, mesh=mesh, in_specs=P(), out_specs=P(), check_vma=False)
    print(jax.jit(step)(jnp.zeros((8, 128), jnp.float32))[0, :2])
