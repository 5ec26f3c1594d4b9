# pallas-lsp example: valid
# note: The plain TMEM load, reduced afterwards with jnp (reduce=None is the plain load).
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_ref, y_ref, peak_ref, acc):
    plgpu.async_store_tmem(acc, x_ref[...] - 1.0)
    plgpu.commit_tmem()
    y = plgpu.async_load_tmem(acc, reduce=None)
    plgpu.wait_load_tmem()
    y_ref[...] = y
    peak_ref[...] = jnp.max(jnp.abs(y), axis=1)


def main():
    x = jnp.zeros((128, 64), jnp.float32)
    run = plgpu.kernel(body, out_type=(jax.ShapeDtypeStruct(x.shape, x.dtype),
                                       jax.ShapeDtypeStruct((128,), x.dtype)),
                       scratch_types=[plgpu.TMEM((128, 64), jnp.float32)],
                       interpret=plgpu.InterpretGPUParams())
    print(run(x)[1][:2])


if __name__ == "__main__":
    main()
