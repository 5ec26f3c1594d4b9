import jax.numpy as jnp

import kernels_mod as km

if __name__ == "__main__":
    print(km.square(jnp.ones((128,), jnp.float32), interpret=True))
