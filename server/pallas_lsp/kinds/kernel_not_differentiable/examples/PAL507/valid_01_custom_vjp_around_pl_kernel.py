# pallas-lsp example: valid
# note: A jax.custom_vjp around a pl.kernel (TPU interpret params): jax.grad uses its rule, not mpmd_map's.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def double_body(x_hbm, o_hbm, buf):
    pltpu.sync_copy(x_hbm, buf)
    buf[...] = buf[...] * 2.0
    pltpu.sync_copy(buf, o_hbm)


double_impl = pl.kernel(double_body, out_type=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                        mesh=pltpu.create_tensorcore_mesh("core", num_cores=1),
                        scratch_types=[pltpu.VMEM((8, 128), jnp.float32)],
                        interpret=pltpu.InterpretParams())


@jax.custom_vjp
def double(x):
    return double_impl(x)


double.defvjp(lambda x: (double_impl(x), None), lambda _, g: (2.0 * g,))


def main():
    print(jax.grad(lambda v: double(v).sum())(jnp.ones((8, 128), jnp.float32))[0, :4])


if __name__ == "__main__":
    main()
