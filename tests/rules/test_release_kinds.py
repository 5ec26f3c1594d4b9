"""Kinds whose error depends on the jax release the code is checked against (issue 43), on code
shapes of their own, each with a clean twin. Every program here was run (lowered for CUDA, or
traced) on the CPU under jax 0.10.2, 0.11.2 and 0.12.0.1 (and 0.9.2 for PAL611); what each
release did is written beside it.

* PAL401 and a sequence written out (``jnp.concatenate((a, b))``): jax 0.10.2's Mosaic GPU
  lowering registers no rule for ``concatenate`` under any semantics (0.11.2 adds them), so the
  call fails there; the tables knew it, but the rule read ``[x, y]`` as an argument it could not
  tell and stayed quiet.
* PAL611: ``pl.kernel(out_shape=)`` raises from 0.10.2 on (0.9.2's parameter is ``out_shape``),
  ``plgpu.kernel(out_shape=)`` from 0.11.2 on (0.10.2 still takes it, a deprecated alias of
  ``out_type=``); the record's wordings say which release prints which message.
"""
from __future__ import annotations

import pytest

from pallas_lsp.releases import analysis_release
from pallas_lsp.rules import analyse


def codes(text: str, release: str, code: str) -> list[tuple[int, str]]:
    got = analyse(text, "case.py", release=analysis_release(release))
    return [(f.span.line, f.record) for f in got.findings if f.code == code]


def line_of(text: str, marker: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if marker in line)


# 0.10.2: NotImplementedError: Unimplemented primitive in Pallas Mosaic GPU lowering: concatenate
# for lowering semantics LoweringSemantics.Lane ...; 0.11.2 and 0.12.0.1: lowers.
CONCAT_TUPLE_IN_HELPER = """\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

ROWS, COLS = 64, 256


def stacked(top, bottom):
    return jnp.concatenate((top, bottom), axis=0)  # here


def join_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = stacked(a_ref[...], b_ref[...])


def join(a, b):
    return plgpu.kernel(join_kernel, out_type=jax.ShapeDtypeStruct((2 * ROWS, COLS), jnp.float32),
                        compiler_params=plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Lane))(a, b)


spec = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
jax.jit(join).trace(spec, spec).lower(lowering_platforms=("cuda",))
"""

# A plain GPU pallas_call lowers through Mosaic GPU (Lane) in 0.10.2: the same error there; Triton
# (which lowers concatenate) in 0.11.2 and 0.12.0.1.
CONCAT_LIST_PALLAS_CALL = """\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 32, 128


def side_by_side_kernel(x_ref, y_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = jnp.concatenate([x, y_ref[...] * 2.0], axis=1)  # here


def side_by_side(x, y):
    return pl.pallas_call(side_by_side_kernel, out_shape=jax.ShapeDtypeStruct((ROWS, 2 * COLS), jnp.float32))(x, y)


spec = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
jax.jit(side_by_side).trace(spec, spec).lower(lowering_platforms=("cuda",))
"""

# The clean twin: one array given (its rows are joined: a reshape), lowers under every release.
CONCAT_ONE_ARRAY = """\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

ROWS, COLS = 64, 256


def flat_kernel(a_ref, o_ref):
    o_ref[...] = jnp.concatenate(a_ref[...])


def flatten(a):
    return plgpu.kernel(flat_kernel, out_type=jax.ShapeDtypeStruct((ROWS * COLS,), jnp.float32),
                        compiler_params=plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Lane))(a)


jax.jit(flatten).trace(jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)).lower(lowering_platforms=("cuda",))
"""


@pytest.mark.parametrize("text", [CONCAT_TUPLE_IN_HELPER, CONCAT_LIST_PALLAS_CALL])
def test_concatenate_of_a_written_out_sequence_under_0_10_2(text):
    assert codes(text, "0.10.2", "PAL401") == [(line_of(text, "# here"), "mgpu-lower-unimplemented-primitive")]


@pytest.mark.parametrize("release", ["0.11.2", "0.12.0.1"])
@pytest.mark.parametrize("text", [CONCAT_TUPLE_IN_HELPER, CONCAT_LIST_PALLAS_CALL])
def test_concatenate_lowers_from_0_11_2(text, release):
    assert codes(text, release, "PAL401") == []


@pytest.mark.parametrize("release", ["0.10.2", "0.11.2", "0.12.0.1"])
def test_concatenate_of_one_array_is_a_reshape(release):
    assert codes(CONCAT_ONE_ARRAY, release, "PAL401") == []


# 0.9.2: traces (out_shape is pl.kernel's parameter); 0.10.2 on: TypeError: kernel() got an
# unexpected keyword argument 'out_shape'.
PL_KERNEL_OUT_SHAPE = """\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def double_body(x_hbm, o_hbm):
    pltpu.sync_copy(x_hbm, o_hbm)


def double(x):
    return pl.kernel(double_body, mesh=pltpu.create_tensorcore_mesh("core", num_cores=1),
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  # here


jax.jit(double).trace(jax.ShapeDtypeStruct((16, 256), jnp.bfloat16))
"""

# 0.9.2 and 0.10.2: traces (0.10.2 takes out_shape= as a deprecated alias of out_type=); 0.11.2
# on: TypeError: Mesh.__init__() got an unexpected keyword argument 'out_shape'.
PLGPU_KERNEL_OUT_SHAPE = """\
import functools

import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


@functools.partial(plgpu.kernel, out_shape=jax.ShapeDtypeStruct((512,), jnp.int32), grid=(2,),  # here
                   grid_names=("blocks",))
def increment(x_gmem, o_gmem):
    o_gmem[...] = x_gmem[...] + 1


jax.jit(increment).trace(jax.ShapeDtypeStruct((512,), jnp.int32))
"""


@pytest.mark.parametrize("text, raising", [
    (PL_KERNEL_OUT_SHAPE, {"0.10.2", "0.11.2", "0.12.0.1"}),
    (PLGPU_KERNEL_OUT_SHAPE, {"0.11.2", "0.12.0.1"}),
])
@pytest.mark.parametrize("release", ["0.9.2", "0.10.2", "0.11.2", "0.12.0.1"])
def test_out_shape_keyword_only_where_the_release_rejects_it(text, raising, release):
    want = [(line_of(text, "# here"), "kernel-out-shape-keyword")] if release in raising else []
    assert codes(text, release, "PAL611") == want


@pytest.mark.parametrize("text", [PL_KERNEL_OUT_SHAPE, PLGPU_KERNEL_OUT_SHAPE])
@pytest.mark.parametrize("release", ["0.10.2", "0.11.2", "0.12.0.1"])
def test_out_type_twin_is_clean(text, release):
    # (the fix's program: traced clean under each of these releases)
    assert codes(text.replace("out_shape=", "out_type="), release, "PAL611") == []


def test_the_message_names_the_release_checked_against():
    got = analyse(PLGPU_KERNEL_OUT_SHAPE, "case.py", release=analysis_release("0.11.2"))
    (finding,) = [f for f in got.findings if f.code == "PAL611"]
    assert "(jax 0.11.2)" in finding.message
    assert "Mesh.__init__() got an unexpected keyword argument 'out_shape'" in finding.message
