"""``interpret=params or debug`` (and ``and``): each operand followed to the callers that fill
it, the two paired call by call, and the value Python picks (the first truthy operand of
``or``, the first falsy of ``and``, else the last) decides the mode. The kernel calls an
``inline_mgpu`` function, which the GPU interpreter skips with ``inline_mgpu="ignore"`` and
every other interpreter rejects. tests/oracle/test_program_cases.py runs each program under jax
0.12.0.1 on a CPU host: unmarked ones run clean, marked ones raise the marked code's record."""
from __future__ import annotations

import pytest

from pallas_lsp.rules import analyse
from tests.analysis.program_cases import expected, found

HEAD = '''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

IGNORE = plgpu.InterpretGPUParams(inline_mgpu="ignore")
X = jnp.zeros((128,), jnp.float32)


def kernel(x_ref, o_ref):
    @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
    def fence(ctx, ref):
        del ctx, ref

    o_ref[...] = x_ref[...] - 1.0
    fence(o_ref){marker}


def run(x, params=None, debug=False):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret={value})(x)

'''
TAIL = '''

if __name__ == "__main__":
    main()
'''
CASES = {
    "or_takes_the_params_a_caller_passes": ("params or debug", "", '''
def main():
    print(run(X, params=IGNORE)[:2])
'''),
    "or_falls_to_the_flag_a_caller_sets": ("params or debug", "  # PAL003", '''
def main():
    print(run(X, debug=True)[:2])
'''),
    "or_paired_call_by_call": ("params or debug", "  # PAL003", '''
def main():
    print(run(X, params=IGNORE)[:2])
    print(run(X, debug=True)[:2])
'''),
    "and_takes_the_last_when_the_first_is_truthy": ("debug and params", "", '''
def main():
    print(run(X, params=IGNORE, debug=True)[:2])
'''),
    "and_with_default_params_objects": ("debug and plgpu.InterpretGPUParams()", "  # PAL003", '''
def main():
    print(run(X, debug=True)[:2])
'''),
}


def program(name: str) -> str:
    value, marker, body = CASES[name]
    return HEAD.format(value=value, marker=marker) + body + TAIL


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_boolean_interpret_value_is_decided_call_by_call(name):
    src = program(name)
    assert found(src) == expected(src)


def test_the_message_names_the_operand_and_the_call_that_decided():
    (f,) = analyse(program("or_falls_to_the_flag_a_caller_sets"), "/tmp/bool_ops.py").findings
    assert "launched with `debug=True`" in f.message and "by `main`" in f.message
    assert [r.message for r in f.related if r.message.startswith("mode decided here")][-1] == \
        "mode decided here: interpret=params or debug"


def test_an_operand_that_cannot_be_told_leaves_the_mode_unknown():
    src = HEAD.format(value="params or compute_flag()", marker="", ) + '''
def main():
    print(run(X)[:2])
'''
    (launch,) = analyse(src, "/tmp/bool_ops.py").launches
    assert [c.mode.value for c in launch.contexts] == ["unknown"]
