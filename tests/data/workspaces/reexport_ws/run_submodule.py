import jax.numpy as jnp

import kernels_sub.square

if __name__ == "__main__":
    print(kernels_sub.square.square(jnp.ones((128,), jnp.float32), interpret=True))
