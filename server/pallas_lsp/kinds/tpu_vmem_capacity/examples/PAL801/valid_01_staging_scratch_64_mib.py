# pallas-lsp example: valid
# note: A 64 MiB float32 VMEM scratch fits (32-bit scratch is outside the scoped limit). The chip's label: tests/data/chip/labels.json, cases/tpu-vmem-capacity__staging_scratch_64mib_clean.py.
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

MiB = 1 << 20
STAGE = (4096, 4096)


def staged_kernel(x_ref, o_ref, stage_ref):
    stage_ref[pl.ds(0, 16), :] = x_ref[...] + 1.0
    o_ref[...] = stage_ref[pl.ds(0, 16), :]


def launch(x):
    return pl.pallas_call(
        staged_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 4096), jnp.float32),
        grid=(1,),
        in_specs=[pl.BlockSpec((16, 4096), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((16, 4096), lambda i: (0, 0)),
        scratch_shapes=[pltpu.VMEM(STAGE, jnp.float32)],
    )(x)


def main():
    # Compiled for TPU: run it where a TPU is attached.
    print(launch(jnp.ones((16, 4096), jnp.float32)).shape)


if __name__ == "__main__":
    main()
