# pallas-lsp example: invalid
# note: A global SMEM buffer under interpret=True; as kernel scratch it runs.
# raises: TypeError: No ir_type_handler for aval type
# fix: Allocate the buffer as kernel scratch (scratch_types=[plgpu.SMEM((ROWS,), jnp.float32)]); scratch lives for one kernel invocation
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

ROWS = 256


def scale(x_ref, o_ref):
    buf = pl.get_global(plgpu.SMEM((ROWS,), jnp.float32))  # error
    buf[...] = x_ref[...] * 0.5
    o_ref[...] = buf[...]


def main():
    x = jnp.full((ROWS,), 4.0, jnp.float32)
    run = plgpu.kernel(scale, out_type=jax.ShapeDtypeStruct((ROWS,), jnp.float32), interpret=True)
    print(run(x)[:4])


if __name__ == "__main__":
    main()
