# pallas-lsp example: invalid
# note: A named pl.Buffered(8) on the output BlockSpec of a row-blocked launch.
# raises: LoweringException: Only single \(1\) and double \(2\) buffering are supported. Got 8.
# fix: Use pl.Buffered(2) (double buffering, the default; results unchanged)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

DEEP = pl.Buffered(8)


def negate_kernel(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


def negate(x):
    rows = pl.BlockSpec((32, 512), lambda i: (i, 0))
    return pl.pallas_call(
        negate_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 32,),
        in_specs=[rows],
        out_specs=pl.BlockSpec((32, 512), lambda i: (i, 0), pipeline_mode=DEEP),  # error
    )(x)


def main():
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(negate).trace(jax.ShapeDtypeStruct((256, 512), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
