# case: family=tpu-vmem-scoped-limit chip=clean cpu=lowers interp=clean
# intent: (2048, 1024) x (1024, 1024) float32 matmul in (512, 1024) row bands over a 4-step grid, the whole weight matrix one block that never moves: x 2 x 2 MiB + w 2 x 4 MiB + o 2 x 2 MiB + the f32 product 2 MiB = 18 MiB, over the 16 MiB default scoped limit of a v5e, as first modelled; the chip compiled it (12.00M stated with the limit forced to 1 MiB: the weights' block, whose index map never moves, gets one buffer, and the product stored into the output takes no buffer of its own).
# grounded: the VMEM budget model (analysis/vmem_budget.py, calibrated in tests/data/chip/vmem_calibration.jsonl); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False

M, K, N = 2048, 1024, 1024
BM = 512


def project_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = x_ref[...] @ w_ref[...]


def launch(x, w):
    return pl.pallas_call(  # DECOY
        project_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.float32),
        grid=(M // BM,),
        in_specs=[pl.BlockSpec((BM, K), lambda i: (i, 0)),
                  pl.BlockSpec((K, N), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((BM, N), lambda i: (i, 0)),
        interpret=INTERPRET,
    )(x, w)


def inputs():
    x = jnp.ones((M, K), jnp.float32) / K
    w = jnp.ones((K, N), jnp.float32) * 0.5
    return x, w


def reference(x, w):
    return x @ w


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
