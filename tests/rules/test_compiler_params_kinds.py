"""PAL612 compiler-params-dict: ``compiler_params=`` that is surely a dict, which lowering (TPU,
GPU, interpret mode on the CPU) hashes and fails on (analysis/launch_signature.py
``compiler_params_dict``); the fix, where the dict names one backend whose jax 0.12 dataclass
has every field it sets. Each case was run under jax 0.12.0.1 (CPU, interpret=True); the clean
twins run. Shapes differ from the examples and the corpus: a partial decorator with a Triton
dict, a key the TPU dataclass does not have, a helper parameter."""
from pallas_lsp.rules import analyse

HEADER = """import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
"""


def found(text: str):
    return [f for f in analyse(HEADER + text, "/tmp/compiler_params.py").findings if f.code == "PAL612"]


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate((HEADER + text).splitlines(), 1) if needle in line)


DECORATOR = """

@functools.partial(pl.pallas_call, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                   compiler_params={params}, interpret=True)
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...] - 1


k(jnp.ones((8, 128)))
"""


def test_a_triton_dict_in_a_partial_decorator_gets_the_triton_dataclass():
    # JAX: TypeError: unhashable type: 'dict'
    text = DECORATOR.format(params="dict(triton=dict(num_warps=2))")
    (f,) = found(text)
    assert f.span.line == line_of(text, "compiler_params=dict(")
    assert "unhashable type: 'dict'" in f.message
    (fix,) = f.fixes
    assert fix.safe and any("CompilerParams(num_warps=2)" in e.new_text for e in fix.edits)


def test_a_key_the_dataclass_lacks_is_found_without_a_fix():
    # JAX: TypeError: unhashable type: 'dict' (and pltpu.CompilerParams has no kernel_name)
    (f,) = found(DECORATOR.format(params='{"mosaic": {"kernel_name": "x"}}'))
    assert f.fixes == ()


def test_the_dataclass_is_quiet():
    assert found(DECORATOR.format(params="pltpu.CompilerParams(vmem_limit_bytes=1 << 20)")) == []


def test_a_helper_parameter_not_known_is_quiet():
    text = """

def launch(x, params):
    return pl.pallas_call(lambda x_ref, o_ref: None, out_shape=x, compiler_params=params, interpret=True)(x)
"""
    assert found(text) == []
