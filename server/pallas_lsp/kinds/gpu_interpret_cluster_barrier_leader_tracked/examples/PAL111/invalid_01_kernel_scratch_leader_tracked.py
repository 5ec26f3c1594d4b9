# pallas-lsp example: invalid
# note: A leader-tracked cluster barrier as plgpu.kernel scratch (never used), GPU interpret mode forced.
# raises: NotImplementedError: Cluster barriers with `leader_tracked` are not yet supported
# fix: Track arrivals in every block (drop leader_tracked=True)
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu

SYNC = plgpu.ClusterBarrier(collective_axes=("c",), leader_tracked=True)  # error


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
