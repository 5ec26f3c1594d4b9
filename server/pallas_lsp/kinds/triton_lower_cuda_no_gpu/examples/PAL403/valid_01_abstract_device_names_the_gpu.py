# pallas-lsp example: valid
# note: An AbstractDevice in scope names the target GPU: the Triton kernel lowers on a CPU-only host.
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def add_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def main():
    x = jax.ShapeDtypeStruct((128,), jnp.float32)
    call = pl.pallas_call(add_kernel, out_shape=x)
    target = jax.sharding.AbstractDevice(device_kind="NVIDIA H100 80GB HBM3", num_cores=None, platform="cuda")
    with jax.sharding.use_abstract_mesh(jax.sharding.AbstractMesh((1,), ("x",), abstract_device=target)):
        lowered = jax.jit(call).trace(x).lower(lowering_platforms=("cuda",))
    print(lowered.as_text()[:40])


if __name__ == "__main__":
    main()
