# pallas-lsp example: valid
# note: The same scratch without leader tracking.
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu

SYNC = plgpu.ClusterBarrier(collective_axes=("c",))


def body(x_ref, o_ref, sync):
    o_ref[...] = x_ref[...] - 2.0


def main():
    x = jnp.ones((128,), jnp.float32)
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
                       scratch_types=[SYNC], cluster=(2,), cluster_names=("c",))
    with plgpu.force_gpu_interpret_mode():
        print(run(x)[:2])


if __name__ == "__main__":
    main()
