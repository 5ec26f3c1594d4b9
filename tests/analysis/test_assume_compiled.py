"""Will it run on the chip? ``assume_compiled="tpu"`` analyses interpreted launches as if compiled
for TPU, and must predict what the compiled launch gets. Round trip over every chip-labelled case
(tests/data/chip/cases: compiled and run on a TPU v5e) and the shared chip corpus: the case as
written (``INTERPRET = False``, analysed with the ``backends`` setting saying TPU) and its
interpret twin (``INTERPRET = True``, analysed with ``assume_compiled``) get the same findings on
the same lines (more only where the chip agrees), and the twin's say they are assumed."""
from __future__ import annotations

import re

import pytest

from pallas_lsp.analysis.contexts import JaxRelease
from pallas_lsp.analysis.engine import ContextOptions
from pallas_lsp.rules import default_engine
from tests.conftest import DATA, ROOT

ENGINE = default_engine()
CHIP_RELEASE = JaxRelease("0.10.2")  # (the chip's release: its labels' wordings and APIs)
CASES = sorted((DATA / "chip" / "cases").glob("*.py")) + sorted((ROOT.parent / "shared" / "corpus-tpu" / "cases")
                                                              .glob("*.py"))
_INTERPRET = re.compile(r"^INTERPRET = False$", re.M)


def _found(result) -> set[tuple[str, int]]:
    return {(f.code, f.span.line) for f in result.findings}


def _label(path):
    """The chip's label of a case (tests/data/chip/labels.json, or the shared corpus's)."""
    import json

    if path.parent == DATA / "chip" / "cases":
        return json.loads((DATA / "chip" / "labels.json").read_text())["cases"].get(f"cases/{path.name}")
    return json.loads((path.parents[1] / "labels.json").read_text()).get(path.name)


@pytest.mark.parametrize("path", [p for p in CASES if _INTERPRET.search(p.read_text())], ids=lambda p: p.name)
def test_interpret_twin_assumed_compiled_gets_the_compiled_findings(path):
    text = path.read_text()
    compiled = ENGINE.analyse(text, str(path), backends=("tpu",), release=CHIP_RELEASE)
    twin = _INTERPRET.sub("INTERPRET = True", text)
    assert ENGINE.analyse(twin, str(path), release=CHIP_RELEASE).findings == [] or \
        all(not f.extra.get("assumed") for f in ENGINE.analyse(twin, str(path), release=CHIP_RELEASE).findings)
    assumed = ENGINE.analyse(twin, str(path), assume_compiled="tpu", release=CHIP_RELEASE)
    assert _found(assumed) >= _found(compiled), path.name
    # More only where the code itself says another backend (GPU compiler params: the `backends`
    # setting keeps such a launch a GPU one), and then exactly what the chip raised.
    label = _label(path)
    for f in assumed.findings:
        if (f.code, f.span.line) not in _found(compiled):
            assert label is not None and label["outcome"] != "clean" and label["feature"] == f.record \
                and f.span.line in (label.get("lines") or [label["line"]]), (path.name, f.code, f.span.line, label)
    for f in assumed.findings:
        if f.launch_line:
            assert f.extra.get("assumed") == "compiled:tpu" and f.message.startswith(
                "What if (--assume-compiled tpu): "), f.message


def test_the_round_trip_covers_chip_failures():
    # (the test above would pass vacuously on cases nothing is found in)
    found = sum(bool(ENGINE.analyse(p.read_text(), str(p), backends=("tpu",), release=CHIP_RELEASE).findings)
                for p in CASES if _INTERPRET.search(p.read_text()))
    assert found >= 60, found


GPU_AND_TPU = '''
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def k(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def gpu(x):
    return pl.pallas_call(k, out_shape=jax.ShapeDtypeStruct((8, 100), jnp.float32),
                          grid=(1,), in_specs=[pl.BlockSpec((8, 100), lambda i: (0, 0))],
                          out_specs=pl.BlockSpec((8, 100), lambda i: (0, 0)),
                          interpret=plgpu.InterpretGPUParams())(x)


def anywhere(x):
    return pl.pallas_call(k, out_shape=jax.ShapeDtypeStruct((16, 1000), jnp.float32),
                          grid=(2,), in_specs=[pl.BlockSpec((8, 100), lambda i: (i, 0))],
                          out_specs=pl.BlockSpec((8, 1000), lambda i: (i, 0)),
                          interpret=True)(x)


def main():
    return anywhere(jnp.ones((16, 1000), jnp.float32))
'''


def test_gpu_interpret_launches_keep_their_mode_and_the_context_says_how_it_was_written():
    result = ENGINE.analyse(GPU_AND_TPU, "/tmp/g.py", assume_compiled="tpu")
    (f,) = result.findings  # the (8, 100) block of the interpret=True launch only
    assert (f.code, f.span.line) == ("PAL640", 21)
    assert "kernel `k` is assumed to be compiled for TPU (--assume-compiled tpu; the code has it launched " \
           "with `interpret=True` (line 23))" in f.message
    gpu = next(launch for launch in result.launches if launch.line == 13)
    assert [c.mode.value for c in gpu.contexts] == ["gpu-interpret"]


def test_options_exclude_each_other_and_unknown_backends():
    with pytest.raises(ValueError, match="exclude each other"):
        ContextOptions.of(assume_interpret="tpu", assume_compiled="tpu")
    with pytest.raises(ValueError, match="assume_compiled must be one of tpu"):
        ContextOptions.of(assume_compiled="gpu")


PORTED = '''
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plt


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def add(x, y):
    return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          compiler_params=plt.CompilerParams(num_warps=4))(x, y)
'''


def test_a_pallas_call_only_its_gpu_params_make_a_gpu_launch_is_assumed_ported():
    # Compiled as written, Triton's params make it a Triton launch (the `backends` setting does not
    # override them); assumed compiled for TPU, the params are what the chip rejects (the chip's
    # label of corpus-tpu's grid__gpu_compiler_params: a bare AssertionError in the TPU lowering).
    assert [f.code for f in ENGINE.analyse(PORTED, "/tmp/p.py", backends=("tpu",), release=CHIP_RELEASE).findings] == []
    (f,) = ENGINE.analyse(PORTED, "/tmp/p.py", assume_compiled="tpu", release=CHIP_RELEASE).findings
    assert f.code == "PAL614" and f.extra["assumed"] == "compiled:tpu"
    # A Mosaic GPU kernel (plgpu.kernel) stays GPU code: nothing assumed.
    gpu = PORTED.replace("from jax.experimental.pallas import triton as plt", "from jax.experimental.pallas import "
                         "mosaic_gpu as plgpu")
    gpu = gpu.replace("pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
                      "                          compiler_params=plt.CompilerParams(num_warps=4))",
                      "plgpu.kernel(add_kernel, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))")
    result = ENGINE.analyse(gpu, "/tmp/g.py", assume_compiled="tpu")
    assert [c.mode.value for launch in result.launches for c in launch.contexts] == ["mosaic-gpu"]
