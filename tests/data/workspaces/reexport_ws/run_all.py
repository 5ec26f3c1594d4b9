import jax.numpy as jnp

from kernels_all import launch

if __name__ == "__main__":
    print(launch(jnp.ones((128,), jnp.float32), interpret=True))
