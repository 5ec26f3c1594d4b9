"""Where a launch runs: the code's own facts that put a compiled launch on a CPU host
(analysis/hosts.py), and force_/set_ interpret-mode calls that miss the launch. Each program
was run under jax 0.12.0.1 on a CPU host (tests/oracle/test_program_cases.py runs them again): the ones
without a marked line run clean, the others raise the error of the marked code's record."""
from __future__ import annotations

import pytest

from pallas_lsp.analysis.hosts import pins_cpu
from pallas_lsp.rules import analyse
from tests.analysis.program_cases import expected, found

HEAD = '''\
import functools
import os

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def inc_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


X = jnp.zeros((8, 128), jnp.float32)
'''
TAIL = '''

if __name__ == "__main__":
    main()
'''
CASES = {
    "default_device_a_local_cpu_device": '''
def main():
    jax.config.update("jax_default_device", jax.local_devices(backend="cpu")[0])
    print(pl.pallas_call(inc_kernel, out_shape=X)(X)[0, :2])  # PAL510
''',
    "platform_name_pinned_in_main": '''
def main():
    jax.config.update("jax_platform_name", "cpu")
    print(pl.pallas_call(inc_kernel, out_shape=X)(X)[0, :2])  # PAL510
''',
    "environment_setdefault_with_a_list": '''
os.environ.setdefault("JAX_PLATFORMS", "cpu,tpu")


def main():
    print(pl.pallas_call(inc_kernel, out_shape=X)(X)[0, :2])  # PAL510
''',
    "host_test_spelled_equals_tpu": '''
def main():
    on_tpu = jax.default_backend() == "tpu"
    print(pl.pallas_call(inc_kernel, out_shape=X, interpret=on_tpu)(X)[0, :2])  # PAL510
''',
    "host_test_the_right_way_round": '''
def main():
    print(pl.pallas_call(inc_kernel, out_shape=X, interpret=jax.default_backend() == "cpu")(X)[0, :2])
''',
    "pinned_but_interpreted": '''
jax.config.update("jax_platforms", "cpu")


def main():
    print(pl.pallas_call(inc_kernel, out_shape=X, interpret=True)(X)[0, :2])
''',
    "compiled_without_host_facts_is_not_reported": '''
def lower():
    f = pl.pallas_call(inc_kernel, out_shape=X)
    return jax.jit(f).trace(X).lower(lowering_platforms=("tpu",))


def main():
    print(lower().as_text()[:20])
''',
    "force_around_a_call_of_a_module_level_launch": '''
inc = pl.pallas_call(inc_kernel, out_shape=X)


def main():
    with pltpu.force_tpu_interpret_mode():  # PAL511
        print(inc(X)[0, :2])
''',
    "a_second_context_around_a_launch_built_in_the_first": '''
def main():
    with pltpu.force_tpu_interpret_mode():
        inc = pl.pallas_call(inc_kernel, out_shape=X)
    with pltpu.force_tpu_interpret_mode():
        print(inc(X)[0, :2])
''',
    "force_around_the_builder_call": '''
def build():
    return pl.pallas_call(inc_kernel, out_shape=X)


def main():
    with pltpu.force_tpu_interpret_mode():
        inc = build()
    print(inc(X)[0, :2])
''',
    "plgpu_kernel_called_inside_and_outside": '''
def body(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


twice = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))


def main():
    x = jnp.ones((128,), jnp.float32)
    with plgpu.force_gpu_interpret_mode():
        print(twice(x)[:2])
    print(twice(x)[:2])  # PAL511
''',
    "another_function_of_the_same_name_is_not_a_call_of_the_launch": '''
def body(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def helper():
    def twice(v):
        return v * 2.0
    return twice(1.0)


def main():
    twice = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))
    with plgpu.force_gpu_interpret_mode():
        print(twice(jnp.ones((128,), jnp.float32))[:2])
    print(helper())
''',
}


def program(name: str) -> str:
    return HEAD + CASES[name] + TAIL


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_host_is_what_the_code_says(name):
    src = program(name)
    assert found(src) == expected(src)


def test_the_message_names_the_fact_that_decided_the_host():
    (f,) = analyse(program("environment_setdefault_with_a_list"), "/tmp/hosts.py").findings
    assert 'os.environ.setdefault("JAX_PLATFORMS", "cpu,tpu")`, which pins the CPU platform' in f.message
    (f,) = analyse(program("force_around_a_call_of_a_module_level_launch"), "/tmp/hosts.py").findings
    assert "`pltpu.force_tpu_interpret_mode()`, which does not cover where `pl.pallas_call` is built" in f.message


def test_a_compiled_rule_is_quiet_on_a_cpu_host():
    # On a CPU host the launch fails at its cpu lowering, before Mosaic TPU's missing cumsum rule.
    src = HEAD.replace("o_ref[...] = x_ref[...] + 1.0", "o_ref[...] = jnp.cumsum(x_ref[...], axis=1)") + '''
jax.config.update("jax_platforms", "cpu")


def main():
    print(pl.pallas_call(inc_kernel, out_shape=X, compiler_params=pltpu.CompilerParams())(X)[0, :2])
''' + TAIL
    assert [f.code for f in analyse(src, "/tmp/hosts.py").findings] == ["PAL510"]
    assert [f.code for f in analyse(src.replace('jax.config.update("jax_platforms", "cpu")', ""),
                                    "/tmp/hosts.py").findings] == ["PAL401"]


@pytest.mark.parametrize("value, pinned", [("cpu", True), ("cpu,tpu", True), (" CPU ", True), ("tpu,cpu", False),
                                           ("", False), (None, False)])
def test_a_platform_list_pins_the_cpu_when_the_cpu_comes_first(value, pinned):
    assert pins_cpu(value) is pinned



@pytest.mark.parametrize("device, cpu", [('jax.devices("cpu")[0]', True), ('jax.local_devices(backend="cpu")[1]', True),
                                         ("jax.devices()[0]", False), ('jax.devices("tpu")[0]', False),
                                         ("pick_device()", False)])
def test_a_default_device_is_a_cpu_host_only_when_the_code_names_the_cpu(device, cpu):
    text = HEAD + f"""
jax.config.update("jax_default_device", {device})


def main():
    return pl.pallas_call(inc_kernel, out_shape=X)(X)
"""
    assert [f.code for f in analyse(text, "/tmp/hosts.py").findings] == (["PAL510"] if cpu else [])
