# pallas-lsp example: invalid
# note: Triple buffering asked for an input block of a 2-D pl.GridSpec; a pallas_call only single- or double-buffers.
# raises: LoweringException: Only single \(1\) and double \(2\) buffering are supported. Got 3.
# fix: Use pl.Buffered(2) (double buffering, the default; results unchanged)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def gelu_kernel(x_ref, o_ref):
    o_ref[...] = jax.nn.gelu(x_ref[...])


def gelu(x):
    return pl.pallas_call(
        gelu_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid_spec=pl.GridSpec(
            grid=(4, 2),
            in_specs=[pl.BlockSpec((64, 128), lambda i, j: (i, j),
                                   pipeline_mode=pl.Buffered(buffer_count=3))],  # error
            out_specs=pl.BlockSpec((64, 128), lambda i, j: (i, j)),
        ),
    )(x)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(gelu).trace(jax.ShapeDtypeStruct((256, 256), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
