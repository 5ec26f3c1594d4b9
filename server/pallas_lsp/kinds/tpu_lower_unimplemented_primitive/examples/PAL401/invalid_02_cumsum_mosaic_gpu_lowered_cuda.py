# pallas-lsp example: invalid
# note: A prefix sum in a Mosaic GPU kernel (in a helper), lowered for CUDA.
# raises: NotImplementedError: Unimplemented primitive in Pallas Mosaic GPU lowering: cumsum
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def running_total(v):
    return jnp.cumsum(v)  # error


def body(x_ref, o_ref):
    o_ref[...] = running_total(x_ref[...])


def forward(x):
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))
    return run(x)


def main():
    spec = jax.ShapeDtypeStruct((128,), jnp.float32)
    print(jax.jit(forward).trace(spec).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
