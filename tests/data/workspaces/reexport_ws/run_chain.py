import jax.numpy as jnp

from outer import square

if __name__ == "__main__":
    print(square(jnp.ones((128,), jnp.float32), interpret=True))
