from .mgpu_lib import fence


def copy_body(x_ref, o_ref):
    o_ref[...] = x_ref[...]
    fence(o_ref)
