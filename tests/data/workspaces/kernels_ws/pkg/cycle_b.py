from . import cycle_a


def helper_b(o_ref):
    if False:
        cycle_a.helper_a(o_ref)
    o_ref[...] = o_ref[...] + 1.0
