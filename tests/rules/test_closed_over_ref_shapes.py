"""PAL512 / PAL513 where the Ref reaches a ``pl.pallas_call`` kernel other than by a name the
kernel's def closes over directly: a launch built in a helper the enclosing kernel calls (two
calls deep, a ``jax.jit`` one), the Ref handed down the helpers' parameters, bound to the
kernel by ``functools.partial``, a launch built in a ``pl.when`` / ``pl.loop`` body, and a
``jax.new_ref`` passed to the function that builds the launch.

Every program was run under jax 0.12.0.1 on the CPU (tests/oracle/test_closed_over_ref_shapes.py
runs them again): the marked line is where the error's Ref is read, unmarked ones in ``CASES``
run clean, and those in ``NO_CLAIM`` fail with another error, so neither rule may speak there.
"""
from __future__ import annotations

import pytest

from pallas_lsp.rules import analyse
from tests.analysis.program_cases import expected

HEAD = '''\
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu

BLOCK = jax.ShapeDtypeStruct((16, 128), jnp.float32)
ONES = jnp.ones((16, 128), jnp.float32)
'''
TAIL = '''

if __name__ == "__main__":
    main()
'''
# The enclosing launch: interpret=True with a VMEM scratch (the measured case), or TPU interpret
# params (JAX then fails with "Cannot lower a pallas_call with constants").
_OUTER = '''

def main():
    got = pl.pallas_call(stage, out_shape=BLOCK, scratch_shapes=[pltpu.VMEM((16, 128), jnp.float32)],
                         interpret={})(ONES)
    print(got[0, :2])
'''
_PL_KERNEL_OUTER = '''

def main():
    got = pl.kernel(body, out_type=BLOCK, mesh=pltpu.create_tensorcore_mesh("c", num_cores=1),
                    scratch_types=[pltpu.VMEM((16, 128), jnp.float32)], interpret=True)(ONES)
    print(got[0, :2])
'''
_TWO_DEEP = '''
def finish(buf, mode):
    def tail_kernel(out_ref):
        out_ref[...] = buf[...] * 0.5  # {}

    return pl.pallas_call(tail_kernel, out_shape=BLOCK, interpret=mode)()


def middle(buf, mode):
    return finish(buf, mode) + 1.0


def stage(x_ref, o_ref, scratch):
    scratch[...] = x_ref[...] + 2.0
    o_ref[...] = middle(scratch, {})
'''


def _two_deep(marker: str, inner: str, outer: str) -> str:
    return _TWO_DEEP.format(marker, inner) + _OUTER.format(outer)


CASES = {
    # --- the launch is built in helpers the enclosing kernel calls ---------------------------
    "two_helpers_down_interpret_true": _two_deep("PAL513", "True", "True"),
    "two_helpers_down_inner_tpu_params": _two_deep("PAL513", "pltpu.InterpretParams()", "True"),
    "two_helpers_down_inner_gpu_params": _two_deep("PAL512", "plgpu.InterpretGPUParams()", "True"),
    "helper_given_the_input_ref": '''
def shifted(src):
    def shift_kernel(out_ref):
        out_ref[...] = src[...] - 3.0  # PAL513

    return pl.pallas_call(shift_kernel, out_shape=BLOCK, interpret=True)()


def stage(x_ref, o_ref, scratch):
    o_ref[...] = shifted(x_ref)
''' + _OUTER.format("True"),
    "jitted_helper_builds_the_launch": '''
@jax.jit
def shifted(src):
    def shift_kernel(out_ref):
        out_ref[...] = src[...] - 3.0  # PAL513

    return pl.pallas_call(shift_kernel, out_shape=BLOCK, interpret=True)()


def stage(x_ref, o_ref, scratch):
    scratch[...] = x_ref[...]
    o_ref[...] = shifted(scratch)
''' + _OUTER.format("True"),
    "helper_given_the_value": '''
def shifted(value):
    def shift_kernel(v_ref, out_ref):
        out_ref[...] = v_ref[...] - 3.0

    return pl.pallas_call(shift_kernel, out_shape=BLOCK, interpret=True)(value)


def stage(x_ref, o_ref, scratch):
    scratch[...] = x_ref[...]
    o_ref[...] = shifted(scratch[...])
''' + _OUTER.format("True"),
    "helper_builds_a_pl_kernel": '''
def shifted(src):
    def shift_body(out_ref):
        out_ref[...] = src[...] - 3.0

    return pl.kernel(shift_body, out_type=BLOCK, mesh=pltpu.create_tensorcore_mesh("c", num_cores=1),
                     interpret=True)()


def stage(x_ref, o_ref, scratch):
    scratch[...] = x_ref[...]
    o_ref[...] = shifted(scratch)
''' + _OUTER.format("True"),
    # An enclosing pl.kernel: its scratch is refused, its operand was not.
    "enclosing_pl_kernel_scratch": '''
def finish(buf):
    def tail_kernel(out_ref):
        out_ref[...] = buf[...] * 0.5  # PAL513

    return pl.pallas_call(tail_kernel, out_shape=BLOCK, interpret=True)()


def body(x_ref, o_ref, scratch):
    scratch[...] = x_ref[...]
    o_ref[...] = finish(scratch)
''' + _PL_KERNEL_OUTER,
    "enclosing_pl_kernel_operand": '''
def finish(buf):
    def tail_kernel(out_ref):
        out_ref[...] = buf[...] * 0.5

    return pl.pallas_call(tail_kernel, out_shape=BLOCK, interpret=True)()


def body(x_ref, o_ref, scratch):
    o_ref[...] = finish(x_ref)
''' + _PL_KERNEL_OUTER,
    # --- functools.partial binds the Ref to the kernel ---------------------------------------
    "partial_binds_the_scratch": '''
def scale_kernel(factor, out_ref, *, src):
    out_ref[...] = src[...] * factor  # PAL513


def stage(x_ref, o_ref, scratch):
    scratch[...] = x_ref[...]
    o_ref[...] = pl.pallas_call(functools.partial(scale_kernel, 3.0, src=scratch), out_shape=BLOCK,
                                interpret=True)()
''' + _OUTER.format("True"),
    "partial_built_in_a_helper": '''
def scale_kernel(src, out_ref):
    out_ref[...] = src[...] * 3.0  # PAL512


def scaled(buf):
    kernel = functools.partial(scale_kernel, buf)
    return pl.pallas_call(kernel, out_shape=BLOCK, interpret=plgpu.InterpretGPUParams())()


def stage(x_ref, o_ref, scratch):
    scratch[...] = x_ref[...]
    o_ref[...] = scaled(scratch)
''' + _OUTER.format("True"),
    "partial_binds_a_plain_number": '''
def scale_kernel(factor, out_ref):
    out_ref[...] = jnp.full((16, 128), factor, jnp.float32)


def stage(x_ref, o_ref, scratch):
    o_ref[...] = x_ref[...] + pl.pallas_call(functools.partial(scale_kernel, 3.0), out_shape=BLOCK,
                                             interpret=True)()
''' + _OUTER.format("True"),
    # --- built in a pl.when / pl.loop body of the enclosing kernel ---------------------------
    "built_in_a_when_body": '''
def stage(x_ref, o_ref, scratch):
    scratch[...] = x_ref[...] * 2.0
    o_ref[...] = x_ref[...]

    @pl.when(scratch[0, 0] > 1.0)
    def _():
        def again(out_ref):
            out_ref[...] = scratch[...] + 1.0  # PAL513

        o_ref[...] = pl.pallas_call(again, out_shape=BLOCK, interpret=True)()
''' + _OUTER.format("True"),
    "built_in_a_loop_body_through_a_helper": '''
def bumped(src):
    def bump(out_ref):
        out_ref[...] = src[...] + 1.0  # PAL512

    return pl.pallas_call(bump, out_shape=BLOCK, interpret=plgpu.InterpretGPUParams())()


def stage(x_ref, o_ref, scratch):
    scratch[...] = x_ref[...]
    o_ref[...] = x_ref[...]

    @pl.loop(0, 3)
    def _(step):
        o_ref[...] += bumped(scratch)
''' + _OUTER.format("True"),
    # --- a jax.new_ref handed to the function that builds the launch -------------------------
    "new_ref_passed_to_the_builder": '''
def launch_reading(table):
    def lookup(out_ref):
        out_ref[...] = table[...] * 2.0  # PAL513

    return pl.pallas_call(lookup, out_shape=BLOCK, interpret=True)()


@jax.jit
def run(x):
    table = jax.new_ref(x, memory_space=pltpu.SMEM)
    return launch_reading(table)


def main():
    print(run(ONES)[0, :2])
''',
    "new_ref_bound_by_partial": '''
def lookup(table, out_ref):
    out_ref[...] = table[...] * 2.0  # PAL512


@jax.jit
def run(x):
    table = jax.new_ref(x)
    return pl.pallas_call(functools.partial(lookup, table), out_shape=BLOCK,
                          interpret=plgpu.InterpretGPUParams())()


def main():
    print(run(ONES)[0, :2])
''',
    "new_ref_without_memory_space_passed_to_the_builder": '''
def launch_reading(table):
    def lookup(out_ref):
        out_ref[...] = table[...] * 2.0

    return pl.pallas_call(lookup, out_shape=BLOCK, interpret=True)()


@jax.jit
def run(x):
    return launch_reading(jax.new_ref(x))


def main():
    print(run(ONES)[0, :2])
''',
}

# JAX fails with another error here: no claim for either rule.
NO_CLAIM = {
    # "Cannot lower a pallas_call with constants"
    "two_helpers_down_outer_tpu_params": _two_deep("", "True", "pltpu.InterpretParams()"),
}


def program(name: str) -> str:
    return HEAD + {**CASES, **NO_CLAIM}[name] + TAIL


def found(src: str) -> list[tuple[str, int]]:
    return sorted((f.code, f.span.line) for f in analyse(src, "/tmp/closed_over_ref_shapes.py").findings
                  if f.code in ("PAL512", "PAL513"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_closed_over_ref_is_found_where_it_flows(name):
    src = program(name)
    assert found(src) == expected(src)


@pytest.mark.parametrize("name", sorted(NO_CLAIM))
def test_no_claim_where_jax_fails_otherwise(name):
    assert found(program(name)) == []


def test_a_ref_handed_down_two_helpers_names_the_scratch_and_the_enclosing_launch():
    src = program("two_helpers_down_interpret_true")
    (f,) = analyse(src, "/tmp/closed_over_ref_shapes.py").findings
    assert "memory space vmem" in f.message
    lines = src.splitlines()
    assert lines[f.span.line - 1][f.span.col:].startswith("buf[...]")
    notes = {r.message: lines[r.span.line - 1] for r in f.related}
    made = notes["the Ref is the enclosing kernel's, made by this launch"]
    assert "pltpu.VMEM((16, 128), jnp.float32)" in made
    launched = next(line for m, line in notes.items() if m.startswith("the enclosing kernel `stage`"))
    assert "pl.pallas_call(stage" in launched


def test_a_partial_bound_ref_is_underlined_where_the_kernel_reads_it():
    src = program("partial_binds_the_scratch")
    (f,) = analyse(src, "/tmp/closed_over_ref_shapes.py").findings
    line = src.splitlines()[f.span.line - 1]
    assert line[f.span.col:].startswith("src[...]")
    assert "`src` is a Ref in VMEM" in f.message


def test_no_operand_fix_adds_a_parameter_partial_fills_already():
    src = program("new_ref_bound_by_partial")
    (f,) = analyse(src, "/tmp/closed_over_ref_shapes.py").findings
    assert f.code == "PAL512" and not any("new kernel parameter" in x.title for x in f.fixes)
