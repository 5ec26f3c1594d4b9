# pallas-lsp example: invalid
# note: jax.value_and_grad through a module-level plgpu.kernel (interpret=True), called from a helper.
# raises: NotImplementedError: Differentiation rule for 'mpmd_map' not implemented
# fix: Stop the gradient at the kernel's inputs (jax.lax.stop_gradient: no gradient flows through it)
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def negate_body(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


negate = plgpu.kernel(negate_body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32), interpret=True)


def energy(x):
    return (negate(x) * x).sum()


def main():
    x = jnp.arange(128, dtype=jnp.float32)
    value, grad = jax.value_and_grad(energy)(x)  # error
    print(value, grad[:4])


if __name__ == "__main__":
    main()
