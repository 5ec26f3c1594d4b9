# pallas-lsp example: valid
# note: The custom_vjp is built by a call, its rule registered with .defvjp(fwd, partial(bwd, ...)) (maxtext's megablox gmm): neither the wrapped lambda nor the rule's functions are differentiated.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def double(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=plgpu.InterpretGPUParams())(x)


def _fwd(x):
    return double(x), None


def _bwd(scale, res, g):
    return (g * scale,)


def outer(x):
    f = lambda x: _fwd(x)[0]
    f = jax.custom_vjp(f)
    f.defvjp(_fwd, functools.partial(_bwd, 2.0))
    return f(x)


if __name__ == "__main__":
    print(jax.grad(lambda x: outer(x).sum())(jnp.ones((128,), jnp.float32))[:4])
