import jax.numpy as jnp

from kernels_glob import *

if __name__ == "__main__":
    print(sq(jnp.ones((128,), jnp.float32), interpret=True))
