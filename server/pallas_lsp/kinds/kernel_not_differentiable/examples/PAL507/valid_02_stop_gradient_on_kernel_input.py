# pallas-lsp example: valid
# note: The kernel's input is stop_gradient'ed: no tangent reaches plgpu.kernel.
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def negate_body(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


negate = plgpu.kernel(negate_body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32), interpret=True)


def energy(x):
    return (negate(jax.lax.stop_gradient(x)) * x).sum()


def main():
    x = jnp.arange(128, dtype=jnp.float32)
    print(jax.grad(energy)(x)[:4])


if __name__ == "__main__":
    main()
