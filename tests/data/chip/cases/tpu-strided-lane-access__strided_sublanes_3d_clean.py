# case: family=tpu-strided-lane-access chip=raises cpu=lowers interp=clean
# intent: the clean twin of odd_lanes_3d_int32: the stride is on the sublane dim, x_ref[:, pl.ds(1, 8, stride=2), :], lanes whole.
# grounded: tpu.strided_load with stride 1 on the last dim; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def _odd_rows(ref):
    return ref[:, pl.ds(1, 8, stride=2), :]  # DECOY


def odd_kernel(x_ref, o_ref):
    o_ref[...] = _odd_rows(x_ref) + 7


def launch(x):
    return pl.pallas_call(
        odd_kernel,
        out_shape=jax.ShapeDtypeStruct((2, 8, 256), jnp.int32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(2 * 16 * 256, dtype=jnp.int32).reshape(2, 16, 256),)


def reference(x):
    return x[:, 1::2, :] + 7


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
