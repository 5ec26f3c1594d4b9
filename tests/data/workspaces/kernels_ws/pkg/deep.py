from .sync import grid_barrier


def stage(o_ref):
    grid_barrier()
    o_ref[...] = o_ref[...] * 2.0
