"""The backend a compiled launch runs on, from what the code says (issue 23's backend contexts)."""
from __future__ import annotations

import pytest

from pallas_lsp.analysis.contexts import Mode
from pallas_lsp.rules import analyse

HEADER = """import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu

OUT = jax.ShapeDtypeStruct((8, 128), jnp.float32)


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]

"""


def contexts(body: str):
    result = analyse(HEADER + body, "/tmp/backends.py")
    (launch,) = result.launches
    return [(c.mode, c.lowered_for, c.lowering_semantics) for c in launch.contexts]


@pytest.mark.parametrize("body, want", [
    ("def f(x):\n    return pl.pallas_call(kernel, out_shape=OUT)(x)\n",
     (Mode.COMPILED, None, None)),
    ("def f(x):\n    return pl.pallas_call(kernel, out_shape=OUT)(x)\n\n"
     "def lower(x):\n    return jax.jit(f).trace(x).lower(lowering_platforms=('cuda',))\n",
     (Mode.TRITON, "cuda", None)),
    ("def f(x):\n    return pl.pallas_call(kernel, out_shape=OUT)(x)\n\n"
     "def lower(x):\n    return jax.jit(f).trace(x).lower(lowering_platforms=('tpu',))\n",
     (Mode.TPU, "tpu", None)),
    ("def f(x):\n    return pl.pallas_call(kernel, out_shape=OUT, backend='mosaic_tpu')(x)\n",
     (Mode.TPU, None, None)),
    ("def f(x):\n    return pl.pallas_call(kernel, out_shape=OUT, backend='triton')(x)\n",
     (Mode.TRITON, None, None)),
    ("def f(x):\n    return pl.pallas_call(kernel, out_shape=OUT,\n"
     "        in_specs=[pl.BlockSpec(memory_space=pltpu.ANY)])(x)\n",
     (Mode.TPU, None, None)),
    ("SCRATCH = [pltpu.VMEM((8, 128), jnp.float32)]\n\n"
     "def f(x):\n    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=SCRATCH)(x)\n",
     (Mode.TPU, None, None)),
    ("def f(x):\n    return pl.pallas_call(kernel, out_shape=OUT, compiler_params=plgpu.CompilerParams())(x)\n\n"
     "def lower(x):\n    return jax.jit(f).trace(x).lower(lowering_platforms=('cuda',))\n",
     (Mode.MOSAIC_GPU, "cuda", "warpgroup")),
    ("PARAMS = plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Lane)\n\n"
     "def f(x):\n    return plgpu.kernel(kernel, out_type=OUT, compiler_params=PARAMS)(x)\n",
     (Mode.MOSAIC_GPU, None, "lane")),
    ("def f(x):\n    return plgpu.kernel(kernel, out_type=OUT)(x)\n",
     (Mode.MOSAIC_GPU, None, "warpgroup")),
], ids=["unknown", "cuda-triton", "tpu-lowering", "backend-tpu", "backend-triton", "any-memory-space",
        "vmem-scratch", "mgpu-params-cuda", "mgpu-lane", "mgpu-default"])
def test_backend_of_a_compiled_launch(body, want):
    assert contexts(body) == [want]


def test_interpret_is_not_a_backend():
    got = contexts("def f(x):\n    return pl.pallas_call(kernel, out_shape=OUT, backend='triton', interpret=True)(x)\n")
    assert got == [(Mode.INTERPRET, None, None)]


def test_the_backends_setting_stands_for_a_backend_the_code_does_not_say():
    from pallas_lsp.rules import default_engine

    text = HEADER + "def f(x):\n    return pl.pallas_call(kernel, out_shape=OUT)(x)\n"
    engine = default_engine()
    (launch,) = engine.analyse(text, "/tmp/b.py", backends=["triton", "tpu", "nonsense"]).launches
    assert [(c.mode, c.configured) for c in launch.contexts] == [(Mode.TPU, True), (Mode.TRITON, True)]
    from pallas_lsp.analysis.engine import describe_context

    assert describe_context(launch.contexts[0]).startswith("compiled for Mosaic TPU (the `backends` setting;")
    # What the code says wins over the setting.
    said = HEADER + "def f(x):\n    return pl.pallas_call(kernel, out_shape=OUT, backend='triton')(x)\n"
    (launch,) = engine.analyse(said, "/tmp/c.py", backends=["tpu"]).launches
    assert [(c.mode, c.configured) for c in launch.contexts] == [(Mode.TRITON, False)]


def test_backends_in_pyproject_and_settings_are_checked(tmp_path):
    from pallas_lsp.config import config_from_table
    from pallas_lsp.lsp.settings import parse_settings

    cfg = config_from_table({"backends": ["tpu", "cuda"]}, tmp_path, "pyproject.toml")
    assert cfg.backends == ("tpu",)
    assert any("unknown backend `cuda`" in p for p in cfg.problems)
    settings, problems = parse_settings({"backends": ["mosaic_gpu", "gpu"]})
    assert settings.backends == ("mosaic_gpu",) and any("unknown backend `gpu`" in p for p in problems)
