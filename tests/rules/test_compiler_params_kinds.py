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


# jax 0.8.3 took {backend: CompilerParams} and checked it when the call was built
# (_normalize_compiler_params): each shape below was run under 0.8.3, interpret=True, on the CPU.
def found_under(text: str, release: str):
    from pallas_lsp.releases import analysis_release

    return [f for f in analyse(HEADER + text, "/tmp/compiler_params.py", release=analysis_release(release)).findings
            if f.code == "PAL612"]


def test_jax_0_8_refuses_a_key_that_names_no_backend():
    # JAX 0.8.3: ValueError: Unknown backend in compiler_params: triton_gpu
    (f,) = found_under(DECORATOR.format(params='{"triton_gpu": None}'), "0.8.3")
    assert "JAX raises ValueError: Unknown backend in compiler_params: triton_gpu" in f.message


def test_jax_0_8_refuses_a_plain_dict_under_a_backend_key():
    # JAX 0.8.3: ValueError: Unexpected compiler_params for backend mosaic_tpu: {'vmem_limit_bytes': 1048576}
    (f,) = found_under(DECORATOR.format(params='{"mosaic_tpu": {"vmem_limit_bytes": 1 << 20}}'), "0.8.3")
    assert "JAX raises ValueError: Unexpected compiler_params for backend mosaic_tpu" in f.message
    # (0.9.2 and later: TypeError: unhashable type: 'dict')
    (later,) = found_under(DECORATOR.format(params='{"mosaic_tpu": {"vmem_limit_bytes": 1 << 20}}'), "0.9.2")
    assert "unhashable type: 'dict'" in later.message


def test_jax_0_8_takes_a_mapping_to_the_backends_dataclass():
    # JAX 0.8.3: runs clean
    text = DECORATOR.format(params='{"mosaic_tpu": pltpu.CompilerParams(vmem_limit_bytes=1 << 20)}')
    assert found_under(text, "0.8.3") == []
