from . import cycle_b


def helper_a(o_ref):
    cycle_b.helper_b(o_ref)
