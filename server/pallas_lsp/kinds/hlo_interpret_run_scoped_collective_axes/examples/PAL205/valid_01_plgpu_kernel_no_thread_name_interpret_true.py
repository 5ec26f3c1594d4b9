# pallas-lsp example: valid
# note: Without a thread_name the body runs under interpret=True.
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 7.0


def main():
    x = jnp.zeros((128,), jnp.float32)
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)
    print(run(x)[:2])


if __name__ == "__main__":
    main()
