# pallas-lsp example: valid
# note: A Mosaic GPU kernel (plgpu.kernel) lowers for cuda without a GPU.
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def main():
    x = jax.ShapeDtypeStruct((128,), jnp.float32)
    call = plgpu.kernel(body, out_type=x)
    lowered = jax.jit(call).trace(x).lower(lowering_platforms=("cuda",))
    print(lowered.as_text()[:40])


if __name__ == "__main__":
    main()
