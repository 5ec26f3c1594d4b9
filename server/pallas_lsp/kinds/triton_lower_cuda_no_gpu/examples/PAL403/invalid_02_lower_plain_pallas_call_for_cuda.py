# pallas-lsp example: invalid
# note: A pallas_call without compiler params lowered for cuda is a Triton kernel; without a GPU it cannot lower.
# raises: RuntimeError: No supported GPU devices found, please specify an abstract GPU device using AbstractDevice\.
# fix: Lower under an abstract CUDA device (jax.sharding.use_abstract_mesh naming an H100): no GPU needed
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def add_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def main():
    x = jax.ShapeDtypeStruct((128,), jnp.float32)
    call = pl.pallas_call(add_kernel, out_shape=x)
    lowered = jax.jit(call).trace(x).lower(lowering_platforms=("cuda",))  # error
    print(lowered.as_text()[:40])


if __name__ == "__main__":
    main()
