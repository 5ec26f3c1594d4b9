# case: family=tpu-vmem-capacity chip=raises cpu=lowers interp=clean
# intent: a (9216, 4096) float32 VMEM staging scratch (144 MiB) with vmem_limit_bytes at 160 MiB: more than the 128 MiB of VMEM a v5e core has.
# grounded: the VMEM budget model (32-bit scratch must fit physical VMEM alone); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False

MiB = 1 << 20
STAGE = (9216, 4096)


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
        scratch_shapes=[pltpu.VMEM(STAGE, jnp.float32)],  # FAIL
        compiler_params=pltpu.CompilerParams(vmem_limit_bytes=160 * MiB),
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
