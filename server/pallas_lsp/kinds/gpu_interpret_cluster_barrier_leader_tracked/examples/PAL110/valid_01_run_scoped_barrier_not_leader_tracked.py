# pallas-lsp example: valid
# note: leader_tracked=False: the GPU interpreter allocates the cluster barrier.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_ref, o_ref):
    def scope(sync):
        o_ref[...] = x_ref[...] - 2.0

    pl.run_scoped(scope, sync=plgpu.ClusterBarrier(collective_axes=("c",), leader_tracked=False))


def main():
    x = jnp.ones((128,), jnp.float32)
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
                       cluster=(2,), cluster_names=("c",), interpret=plgpu.InterpretGPUParams())
    print(run(x)[:2])


if __name__ == "__main__":
    main()
