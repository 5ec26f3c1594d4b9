# pallas-lsp example: invalid
# note: jax.value_and_grad of a function that builds its pallas_call inside force_gpu_interpret_mode.
# raises: TypeError: _pallas_call_jvp_rule\(\) got an unexpected keyword argument 'kernel_arg_transforms'
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3.0


def objective(x):
    with plgpu.force_gpu_interpret_mode():
        y = pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
    return (y * y).sum()


def main():
    x = jnp.ones((128,), jnp.float32)
    value, grad = jax.value_and_grad(objective)(x)  # error
    print(value, grad[:4])


if __name__ == "__main__":
    main()
