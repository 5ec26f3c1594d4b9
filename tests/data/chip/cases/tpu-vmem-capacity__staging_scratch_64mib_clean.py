# case: family=tpu-vmem-capacity chip=clean cpu=lowers interp=clean
# intent: a (4096, 4096) float32 VMEM staging scratch (64 MiB) under the default scoped limit: 32-bit scratch is not scoped, and 64 MiB fits the 128 MiB of VMEM.
# grounded: the VMEM budget model (32-bit scratch must fit physical VMEM alone); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False

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
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.ones((16, 4096), jnp.float32),)


def reference(x):
    return x + 1.0


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
