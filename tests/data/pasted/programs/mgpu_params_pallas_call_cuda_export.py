import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

def copy_twice(a_ref, b_ref):
    b_ref[...] = a_ref[...] + a_ref[...]

@jax.jit
def doubled(a):
    return pl.pallas_call(copy_twice, out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype),
                          compiler_params=plgpu.CompilerParams(thread_semantics=plgpu.ThreadSemantics.Lane)
                          if hasattr(plgpu, "ThreadSemantics") else plgpu.CompilerParams())(a)

exported = jax.export.export(doubled, platforms=["cuda"])(jax.ShapeDtypeStruct((256,), jnp.float32))
print(exported.mlir_module()[:80])
