# pallas-lsp example: invalid
# note: jax.jvp of a loss whose helper launches a pallas_call under GPU interpret params.
# raises: TypeError: _pallas_call_jvp_rule\(\) got an unexpected keyword argument 'kernel_arg_transforms'
# fix: Differentiate with the generic interpreter (interpret=True)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def cube_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x * x * x


def cube(x):
    return pl.pallas_call(cube_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=plgpu.InterpretGPUParams())(x)


def loss(x):
    return cube(x).sum()


def main():
    x = jnp.full((256,), 2.0, jnp.float32)
    print(jax.jvp(loss, (x,), (jnp.ones_like(x),))[1])  # error


if __name__ == "__main__":
    main()
