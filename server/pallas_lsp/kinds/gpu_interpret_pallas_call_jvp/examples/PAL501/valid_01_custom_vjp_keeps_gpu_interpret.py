# pallas-lsp example: valid
# note: A jax.custom_vjp gives the GPU-interpreted kernel call its own derivative, so jax.grad never reaches pallas_call's JVP rule.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def triple_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3.0


def _triple(x):
    return pl.pallas_call(triple_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=plgpu.InterpretGPUParams())(x)


triple = jax.custom_vjp(_triple)
triple.defvjp(lambda x: (_triple(x), None), lambda _, g: (3.0 * g,))


def main():
    x = jnp.ones((128,), jnp.float32)
    print(jax.grad(lambda v: triple(v).sum())(x)[:4])


if __name__ == "__main__":
    main()
