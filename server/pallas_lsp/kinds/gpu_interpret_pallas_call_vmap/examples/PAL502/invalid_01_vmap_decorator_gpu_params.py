# pallas-lsp example: invalid
# note: A function batched with @jax.vmap launches a pallas_call under GPU interpret params.
# raises: TypeError: _pallas_call_batching_rule\(\) got an unexpected keyword argument 'kernel_arg_transforms'
# fix: Interpret with the generic interpreter (interpret=True)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def add_one_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


@jax.vmap  # error
def add_one(x):
    return pl.pallas_call(add_one_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=plgpu.InterpretGPUParams())(x)


def main():
    xs = jnp.zeros((3, 128), jnp.float32)
    print(add_one(xs)[:, 0])


if __name__ == "__main__":
    main()
